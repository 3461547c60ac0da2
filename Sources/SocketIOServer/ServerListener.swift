import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import SwitchboardCore

/// What a started ``SocketIOServer`` listens with: the Hummingbird application serving its
/// core, the task that runs it, and the service group around it that lets the server stop it
/// gracefully instead of cancelling it.
struct ServerListener: Sendable {
    let task: Task<Void, any Error>
    let group: ServiceGroup
    let host: String
    /// The bound port (the one picked for port 0).
    let port: Int

    /// How long ``stop()`` waits for the graceful shutdown (closing every connection, then the
    /// listener) before it cancels what is left. Every session has been closed by then, so what
    /// is still open is a client that does not finish its side (a WebSocket that does not answer
    /// the close handshake, a reconnecting client racing the stop): it is cut, quietly.
    static let gracefulShutdownLimit: Duration = .milliseconds(500)

    /// Binds `host:port` serving `core`; returns once it accepts connections.
    static func listen(serving core: ServerCore, host: String, port: Int) async throws(SocketIOServerError) -> ServerListener {
        let configuration = core.environment.configuration
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
        do {
            return ServerListener(task: task, group: group, host: host, port: try await listening.value().get())
        } catch {
            task.cancel()
            throw (error as? SocketIOServerError) ?? .cannotListen("\(error)")
        }
    }

    /// Stops accepting and lets the open connections finish, for at most
    /// ``gracefulShutdownLimit``; then cancels what is left.
    func stop() async {
        await group.triggerGracefulShutdown()
        // Cancelling is a no-op once it finished; otherwise it ends the wait for stragglers.
        await waitAtMost(Self.gracefulShutdownLimit, for: { _ = await task.result }, thenEnd: { task.cancel() })
        _ = await task.result
    }
}
