import ArgumentParser
import Foundation
import Logging
import SocketIO

/// The options every command that connects shares, with the same names everywhere.
struct ConnectionOptions: ParsableArguments {
    @Argument(help: "The server URL, e.g. http://127.0.0.1:3000")
    var url: String

    @Option(name: .long, help: "The namespace to join, / by default; or give it as the URL's path (http://127.0.0.1:3000/chat), as socket.io's io(url).")
    var namespace: String?

    @Option(name: .long, help: "The CONNECT auth payload, a JSON object, e.g. '{\"token\":\"secret\"}'.")
    var auth: String?

    @Option(name: .long, help: "Seconds to wait for the connection (default 20).", transform: Seconds.parsePositive)
    var connectTimeout: Duration = .seconds(20)

    @Option(name: .long, help: "websocket, polling, or auto (polling first, then upgrade).")
    var transport: TransportChoice = .auto

    @Option(name: .long, help: "Engine.IO revision: 4 (socket.io 3.x/4.x), 3 (socket.io 2.x), or auto.")
    var eio: VersionChoice = .auto

    @Option(name: .long, help: "An extra HTTP header, NAME:VALUE (repeatable).")
    var header: [String] = []

    @Flag(name: .long, help: "Log the connection (Engine.IO packets, upgrade, close reasons) to standard error.")
    var verbose = false

    @Option(name: .long, help: "Trust exactly the certificates in this PEM file (for test servers with self-signed certificates).")
    var insecureTrustRoot: String?

    /// A manager and the namespace's socket, configured from the options.
    func makeSocket() throws -> (Manager, Socket) {
        guard let url = URL(string: url), url.scheme != nil, url.host != nil else {
            throw CLIError("invalid URL: \(self.url)")
        }
        var configuration = Manager.Configuration()
        configuration.connectTimeout = connectTimeout
        configuration.transports = transport.transports
        configuration.version = eio.choice
        configuration.extraHeaders = try header.map(Self.parseHeader)
        if let insecureTrustRoot { configuration.trustRoots = .pemFile(insecureTrustRoot) }
        if verbose {
            var logger = Logger(label: "sio") { StreamLogHandler.standardError(label: $0) }
            logger.logLevel = .trace
            configuration.logger = logger
        }
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
        let joined: String
        do {
            joined = try SocketNamespace.resolve(url: url, namespace: namespace)
        } catch {
            throw CLIError(error.description)
        }
        return (manager, manager.socket(namespace: joined, auth: socketAuth))
    }

    /// Connects, turning failures into one-line errors. The first failed attempt ends the
    /// command: the manager would otherwise go on retrying (it does, once connected).
    func connect(_ socket: Socket, manager: Manager) async throws {
        try await socket.connectFirstAttempt(on: manager)
    }
}

extension ConnectionOptions {
    static func parseHeader(_ text: String) throws -> (name: String, value: String) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw CLIError("--header must be NAME:VALUE, got \(text)")
        }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return (name, value)
    }
}

/// `--transport`.
enum TransportChoice: String, ExpressibleByArgument, CaseIterable {
    case websocket, polling, auto

    var transports: [EngineTransportKind] {
        switch self {
        case .websocket: [.websocket]
        case .polling: [.polling]
        case .auto: [.polling, .websocket]
        }
    }
}

/// `--eio`.
enum VersionChoice: String, ExpressibleByArgument, CaseIterable {
    case v3 = "3", v4 = "4", auto

    var choice: EngineIOVersionChoice {
        switch self {
        case .v3: .v3
        case .v4: .v4
        case .auto: .auto
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
            StandardOutput.errorLine("sio: \(error.description)")
            throw ExitCode(1)
        }
    }
}
