import ArgumentParser
import Foundation
import SocketIO

/// The options every command that connects shares, with the same names everywhere.
struct ConnectionOptions: ParsableArguments {
    @Argument(help: "The server URL, e.g. http://127.0.0.1:3000")
    var url: String

    @Option(name: .long, help: "The namespace to join.")
    var namespace: String = "/"

    @Option(name: .long, help: "The CONNECT auth payload, a JSON object, e.g. '{\"token\":\"secret\"}'.")
    var auth: String?

    @Option(name: .long, help: "Seconds to wait for the connection.")
    var connectTimeout: Double = 20

    /// A manager and the namespace's socket, configured from the options.
    func makeSocket() throws -> (Manager, Socket) {
        guard let url = URL(string: url), url.scheme != nil, url.host != nil else {
            throw CLIError("invalid URL: \(self.url)")
        }
        var configuration = Manager.Configuration()
        configuration.connectTimeout = .milliseconds(Int(connectTimeout * 1000))
        let manager: Manager
        do {
            manager = try Manager(url: url, configuration: configuration)
        } catch {
            throw CLIError(error.description)
        }
        var socketAuth = SocketAuth.none
        if let auth {
            guard case .object(let object) = try CLIJSON.parse(auth, what: "--auth") else {
                throw CLIError("--auth must be a JSON object")
            }
            socketAuth = .static(object)
        }
        return (manager, manager.socket(namespace: namespace, auth: socketAuth))
    }

    /// Connects, turning failures into one-line errors.
    func connect(_ socket: Socket) async throws {
        do {
            try await socket.connect()
        } catch {
            throw CLIError(error.description)
        }
    }
}

/// A failure the tool reports as one line on standard error, exiting non-zero.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum CLIJSON {
    /// A command-line item: JSON when it looks like JSON (`{…}`, `[…]`, `"…"`, numbers, `true`,
    /// `false`, `null`), otherwise the word as a string.
    static func item(_ argument: String) throws -> JSONValue {
        guard let first = argument.first else { return .string("") }
        let looksLikeJSON = "{[\"-0123456789".contains(first) || ["true", "false", "null"].contains(argument)
        guard looksLikeJSON else { return .string(argument) }
        return try parse(argument, what: "argument")
    }

    static func parse(_ text: String, what: String) throws -> JSONValue {
        do {
            return try JSONValue(parsing: text)
        } catch {
            throw CLIError("\(what) is not valid JSON (\(error)): \(text)")
        }
    }
}

extension AsyncParsableCommand {
    /// Runs `body`, printing a `CLIError` as one line and exiting 1.
    func reportingErrors(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as CLIError {
            FileHandle.standardError.write(Data("sio: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}
