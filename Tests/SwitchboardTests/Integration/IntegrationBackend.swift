import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOServer
@testable import Switchboard
import SwitchboardDemo

/// A technology the platform scenarios run against: the factory whose connections speak it, and
/// a server for it that can be stopped and started again on the same port.
///
/// A backend's server must, for an `echo` event: emit `echo` with the same payload back to the
/// sender, and answer a request for `echo` with the payload (as ``DemoApplication`` does).
/// To run the scenarios on another technology, add one backend to ``IntegrationBackend/all``.
struct IntegrationBackend: Sendable, CustomStringConvertible {
    let description: String
    /// Makes the connection factory (a new one per scenario).
    let factory: @Sendable () -> any ConnectionFactory
    /// Adjusts the configuration the scenarios lease (transport, path, …).
    let configure: @Sendable (inout ConnectionConfiguration) -> Void
    /// Starts a server on `port` (0: a free one).
    let start: @Sendable (_ port: Int) async throws -> RunningBackend

    /// Every backend the scenarios run on.
    static let all: [IntegrationBackend] = [
        .socketIO(.pollingThenWebSocket),
        .socketIO(.webSocketOnly),
        .plainWebSocket,
        .failover,
    ]
}

/// A started backend server.
struct RunningBackend: Sendable {
    let url: URL
    let port: Int
    /// How many client connections the server accepted so far.
    let connections: @Sendable () -> Int
    let stop: @Sendable () async -> Void
}

extension IntegrationBackend {
    /// Socket.IO over the embedded server with ``DemoApplication``'s handlers, on namespace `/`.
    static func socketIO(_ transport: ConnectionTransport) -> IntegrationBackend {
        IntegrationBackend(
            description: "Socket.IO (\(transport.rawValue))",
            factory: { .socketIO },
            configure: { $0.transport = transport },
            start: { port in
                let silent = Logger(label: "test.server") { _ in SwiftLogNoOpLogHandler() }
                let server = SocketIOServer(configuration: DemoApplication.configuration, logger: silent)
                let ticker = DemoApplication.install(on: server, logger: silent)
                ticker.cancel()
                let connections = NIOLockedValueBox(0)
                server.onConnectionEvent { event in
                    if case .socketConnected = event { connections.withLockedValue { $0 += 1 } }
                }
                let running = try await server.start(host: "127.0.0.1", port: port)
                return RunningBackend(
                    url: running.url,
                    port: running.port,
                    connections: { connections.withLockedValue { $0 } },
                    stop: { await running.stop() }
                )
            }
        )
    }
}

extension IntegrationBackend {
    /// The plain WebSocket driver against the embedded server's `/ws`, where ``DemoApplication``
    /// speaks the envelope.
    static let plainWebSocket = IntegrationBackend(
        description: "plain WebSocket",
        factory: { .plainWebSocket },
        configure: { _ in },
        start: { port in
            let silent = Logger(label: "test.server") { _ in SwiftLogNoOpLogHandler() }
            let server = SocketIOServer(configuration: DemoApplication.configuration, logger: silent)
            DemoApplication.install(on: server, logger: silent).cancel()
            let connections = NIOLockedValueBox(0)
            server.onConnectionEvent { event in
                if case .plainWebSocketOpened = event { connections.withLockedValue { $0 += 1 } }
            }
            let running = try await server.start(host: "127.0.0.1", port: port)
            return RunningBackend(
                url: running.url.appendingPathComponent("ws"),
                port: running.port,
                connections: { connections.withLockedValue { $0 } },
                stop: { await running.stop() }
            )
        }
    )
}

extension IntegrationBackend {
    /// The failover channel against the embedded server (``DemoApplication`` serves channels on
    /// `/channel` and `/ws?channel=`); "connections" counts the channels the server opened.
    static let failover = IntegrationBackend(
        description: "failover",
        factory: {
            // Report the loss soon (the scenario waits for `disconnected`); the keeper reconnects.
            let adjust: @Sendable (inout FailoverDriver.Options) -> Void = { options in
                options.maxAttempts = 2
                options.networkMonitor = nil
            }
            return DriverConnectionFactory.failover(options: adjust)
        },
        configure: { _ in },
        start: { port in
            let silent = Logger(label: "test.server") { _ in SwiftLogNoOpLogHandler() }
            let server = SocketIOServer(configuration: DemoApplication.configuration, logger: silent)
            DemoApplication.install(on: server, logger: silent).cancel()
            let channels = NIOLockedValueBox(Set<String>())
            server.onConnectionEvent { event in
                switch event {
                case .plainWebSocketOpened(let id, _): channels.withLockedValue { _ = $0.insert(id) }
                case .socketConnected(let namespace, let id, _, _) where namespace == "/channel": channels.withLockedValue { _ = $0.insert(id) }
                default: break
                }
            }
            let running = try await server.start(host: "127.0.0.1", port: port)
            return RunningBackend(
                url: running.url,
                port: running.port,
                connections: { channels.withLockedValue { $0.count } },
                stop: { await running.stop() }
            )
        }
    )
}
