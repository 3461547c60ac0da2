import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOServer
import Switchboard
import SwitchboardDemo
import SwitchboardTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An embedded server for the driver tests: the demo's `/ws`, or the handler `setup` installs.
struct EnvelopeServer: Sendable {
    let running: RunningServer

    var port: Int { running.port }
    var url: URL { URL(string: "ws://127.0.0.1:\(running.port)/ws")! }

    /// Starts a server on `port` (0: any free one) with the demo installed, then `setup`.
    static func start(port: Int = 0, setup: (SocketIOServer) -> Void = { _ in }) async throws -> EnvelopeServer {
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let server = SocketIOServer(configuration: DemoApplication.configuration, logger: logger)
        DemoApplication.install(on: server, logger: logger).cancel()
        setup(server)
        return EnvelopeServer(running: try await server.start(host: "127.0.0.1", port: port))
    }

    /// Starts a server, runs `body` with it, and stops it (also when `body` throws).
    static func with(
        setup: (SocketIOServer) -> Void = { _ in }, _ body: (EnvelopeServer) async throws -> Void
    ) async throws {
        let server = try await start(setup: setup)
        do {
            try await body(server)
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    func stop() async {
        await running.stop()
    }
}

/// Everything a driver reports, as a stream to wait on and a list to count.
final class DriverEvents: Sendable {
    let stream: AsyncStream<DriverEvent>
    private let continuation: AsyncStream<DriverEvent>.Continuation
    private let recorded = NIOLockedValueBox<[DriverEvent]>([])

    init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    /// The `onEvent` to open a driver with.
    var handler: @Sendable (DriverEvent) -> Void {
        { [self] event in
            recorded.withLockedValue { $0.append(event) }
            continuation.yield(event)
        }
    }

    var all: [DriverEvent] { recorded.withLockedValue { $0 } }

    /// The reasons of every `closed` reported so far.
    var closeReasons: [String] { all.compactMap(\.closedReason) }

    /// The payload of the next event named `name` (earlier events of other names are skipped).
    func next(_ name: String) async throws -> JSONValue? {
        try await stream.firstMatch(within: 10, "event \(name)") { $0.event?.name == name }?.event?.payload
    }

    /// The reason of the next `closed`.
    func nextClose() async throws -> String? {
        try await stream.firstMatch(within: 10, "closed") { $0.closedReason != nil }?.closedReason
    }
}

extension DriverEvent {
    var closedReason: String? {
        if case .closed(let reason) = self { return reason }
        return nil
    }

    var event: (name: String, payload: JSONValue)? {
        if case .event(let name, let payload) = self { return (name, payload) }
        return nil
    }
}

/// A TCP port that accepts connections (the kernel completes the handshake) and never answers.
final class SilentListener: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    func stop() {
        close(descriptor)
    }
}
