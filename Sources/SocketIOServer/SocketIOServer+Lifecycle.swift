public import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle
import SwitchboardCore

extension SocketIOServer {
    /// The task that runs the Hummingbird application, and the service group around it that
    /// lets ``stop()`` shut it down gracefully instead of cancelling it.
    struct Running: Sendable {
        let task: Task<Void, any Error>
        let group: ServiceGroup
    }

    /// How long ``stop()`` waits for the graceful shutdown (closing every connection, then the
    /// listener) before it cancels what is left. Every session has been closed by then, so what
    /// is still open is a client that does not finish its side (a WebSocket that does not answer
    /// the close handshake, a reconnecting client racing the stop): it is cut, quietly.
    static let gracefulShutdownLimit: Duration = .milliseconds(500)

    enum Lifecycle {
        case idle
        case running(Running, RunningServer)
        case stopped
    }

    /// Starts listening and returns once the server accepts connections.
    ///
    /// - Parameters:
    ///   - host: the address to bind (`127.0.0.1` by default; `0.0.0.0` for every interface).
    ///   - port: the port, 0 to 65535; 0 picks a free one (read it from ``RunningServer/port``).
    /// - Throws: ``SocketIOServerError/alreadyStarted``, ``SocketIOServerError/cannotListen(_:)``.
    public func start(host: String = "127.0.0.1", port: Int = 0) async throws(SocketIOServerError) -> RunningServer {
        guard (0...65_535).contains(port) else { throw .cannotListen("port \(port) is not between 0 and 65535") }
        let claimed = lifecycle.withLockedValue { lifecycle in
            guard case .idle = lifecycle else { return false }
            lifecycle = .stopped  // until running; a second start fails meanwhile
            return true
        }
        guard claimed else { throw .alreadyStarted }
        let core = self.core
        let configuration = self.configuration
        do {
            try await core.namespaces.startClusters()
        } catch {
            lifecycle.withLockedValue { $0 = .idle }
            throw .clusterUnavailable("\(error)")
        }
        let listening = FirstResult<Int>()
        let app = Application(
            responder: EngineResponder(core: core),
            server: HTTPServerBuilder { responder in
                EngineChildChannel(
                    responder: responder,
                    core: core,
                    idleTimeout: .milliseconds(configuration.connectionIdleTimeout.wholeMilliseconds),
                    headTimeout: .milliseconds(configuration.requestHeadTimeout.wholeMilliseconds),
                    onEventLoop: configuration.handlersOnEventLoop
                )
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil, backlog: ListenBacklog.size),
            onServerRunning: { channel in
                listening.resolve(.success(channel.localAddress?.port ?? port))
            },
            logger: core.environment.logger
        )
        // A service group with no signals of its own: `stop()` triggers its graceful shutdown,
        // which Hummingbird turns into "stop accepting, let the open connections finish".
        // Cancelling the application instead ends its accept loop with a CancellationError
        // that Hummingbird logs as an error, and waits on connections that were never told.
        let group = ServiceGroup(configuration: .init(services: [app], logger: core.environment.logger))
        let task = Task {
            do {
                try await group.run()
                listening.resolve(.failure(SocketIOServerError.cannotListen("the server stopped before listening")))
            } catch {
                listening.resolve(.failure(SocketIOServerError.cannotListen("\(error)")))
                throw error
            }
        }
        let boundPort: Int
        do {
            boundPort = try await listening.value().get()
        } catch {
            task.cancel()
            throw (error as? SocketIOServerError) ?? .cannotListen("\(error)")
        }
        let running = RunningServer(server: self, host: host, port: boundPort)
        lifecycle.withLockedValue { $0 = .running(Running(task: task, group: group), running) }
        core.environment.logger.info("Socket.IO server listening", metadata: ["socketio.port": "\(boundPort)"])
        return running
    }

    /// Starts the server and runs it until the calling task is cancelled (then stops it).
    public func run(host: String = "127.0.0.1", port: Int) async throws(SocketIOServerError) {
        _ = try await start(host: host, port: port)
        let task: Task<Void, any Error>? = lifecycle.withLockedValue { lifecycle in
            if case .running(let running, _) = lifecycle { return running.task }
            return nil
        }
        await withTaskCancellationHandler {
            _ = await task?.result
        } onCancel: {
            Task { await self.stop() }
        }
    }

    /// Closes every connection (clients see `server shutting down`; polling clients get a
    /// `close` packet, WebSockets a close frame) and stops listening. Idempotent.
    ///
    /// The shutdown is graceful: the listener closes and the connections are given half a
    /// second to finish; only what is still open then is cancelled.
    public func stop() async {
        let running: Running? = lifecycle.withLockedValue { lifecycle in
            defer { lifecycle = .stopped }
            if case .running(let running, _) = lifecycle { return running }
            return nil
        }
        // No new session from here on; the sessions' last changes go to the cluster's store
        // and the cluster is left; then every session and plain WebSocket closes (their
        // clients recover elsewhere), then every connection still sending its first request
        // head: cancelling the server's task cannot reach those (see `UnfinishedRequests`),
        // and one of them would otherwise hold `stop()` forever.
        core.stopAdmitting()
        await core.namespaces.stopClusters()
        core.closeAll()
        // Upgraded connections are served by their handlers, not by the server's task: wait
        // for their close frames to go out and the connections to close.
        await core.webSockets.closed(within: Self.gracefulShutdownLimit)
        guard let running else { return }
        await running.group.triggerGracefulShutdown()
        // Cancelling is a no-op once it finished; otherwise it ends the wait for stragglers.
        await waitAtMost(Self.gracefulShutdownLimit, for: { _ = await running.task.result }, thenEnd: { running.task.cancel() })
        _ = await running.task.result
    }

    /// The running server's address, once started.
    public var running: RunningServer? {
        lifecycle.withLockedValue { lifecycle in
            if case .running(_, let running) = lifecycle { return running }
            return nil
        }
    }
}

/// A started ``SocketIOServer``: where it listens, and how to stop it.
public struct RunningServer: Sendable {
    let server: SocketIOServer
    /// The address the server is bound to.
    public let host: String
    /// The port the server listens on (the one picked when started with port 0).
    public let port: Int

    /// `http://host:port`, the URL a Socket.IO client connects to.
    public var url: URL {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return URL(string: "http://\(hostPart):\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// Stops the server (see ``SocketIOServer/stop()``).
    public func stop() async {
        await server.stop()
    }
}
