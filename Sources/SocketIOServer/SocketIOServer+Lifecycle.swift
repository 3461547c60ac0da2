public import Foundation
import Logging
import NIOConcurrencyHelpers

extension SocketIOServer {
    typealias Lifecycle = ServerLifecycle<CheckedContinuation<Void, Never>, ServerListener>

    /// Starts listening and returns once the server accepts connections.
    ///
    /// A ``stop()`` while this is still starting wins: the server does not listen (or stops
    /// listening at once), stays stopped, and this throws
    /// ``SocketIOServerError/stoppedWhileStarting``.
    ///
    /// - Parameters:
    ///   - host: the address to bind (`127.0.0.1` by default; `0.0.0.0` for every interface).
    ///   - port: the port, 0 to 65535; 0 picks a free one (read it from ``RunningServer/port``).
    /// - Throws: ``SocketIOServerError/alreadyStarted``, ``SocketIOServerError/cannotListen(_:)``,
    ///   ``SocketIOServerError/clusterUnavailable(_:)``, ``SocketIOServerError/stoppedWhileStarting``.
    public func start(host: String = "127.0.0.1", port: Int = 0) async throws(SocketIOServerError) -> RunningServer {
        guard (0...65_535).contains(port) else { throw .cannotListen("port \(port) is not between 0 and 65535") }
        guard lifecycle.withLockedValue({ $0.start() }) else { throw .alreadyStarted }
        do {
            try await core.namespaces.startClusters()
        } catch {
            throw startEnded(.clusterUnavailable("\(error)"))
        }
        // Stopped while joining the cluster: listen not even for a moment.
        guard !lifecycle.withLockedValue({ $0.stopRequested }) else { throw startEnded(.stoppedWhileStarting) }
        let listener: ServerListener
        do {
            listener = try await ServerListener.listen(serving: core, host: host, port: port)
        } catch {
            throw startEnded(error)
        }
        switch lifecycle.withLockedValue({ $0.started(listener) }) {
        case .running:
            break
        case .stop:
            await listener.stop()
            throw startEnded(.stoppedWhileStarting)
        }
        core.environment.logger.info("Socket.IO server listening", metadata: ["socketio.port": "\(listener.port)"])
        return RunningServer(server: self, host: host, port: listener.port)
    }

    /// The start ends without listening: the stops waiting for it go on. Returns what to throw:
    /// `error`, or ``SocketIOServerError/stoppedWhileStarting`` when a stop is why.
    private func startEnded(_ error: SocketIOServerError) -> SocketIOServerError {
        let (stopped, stoppers) = lifecycle.withLockedValue { ($0.stopRequested, $0.startEnded()) }
        for stopper in stoppers { stopper.resume() }
        return stopped ? .stoppedWhileStarting : error
    }

    /// Starts the server and runs it until the calling task is cancelled (then stops it).
    public func run(host: String = "127.0.0.1", port: Int) async throws(SocketIOServerError) {
        _ = try await start(host: host, port: port)
        let task = lifecycle.withLockedValue { $0.running?.task }
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
    /// second to finish; only what is still open then is cancelled. Called while
    /// ``start(host:port:)`` is still starting, it wins: it returns once that start gave up
    /// (without listening) and the server is stopped.
    public func stop() async {
        let stop = lifecycle.withLockedValue { $0.stop() }
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
        await core.webSockets.closed(within: ServerListener.gracefulShutdownLimit)
        switch stop {
        case .stopRunning(let listener):
            await listener.stop()
        case .interruptStart:
            // Leaving the cluster let a start waiting on it go on; it sees the stop and gives
            // up, stopping its listener if it got one.
            await withCheckedContinuation { stopper in
                if !lifecycle.withLockedValue({ $0.waitForStart(stopper) }) { stopper.resume() }
            }
        case .nothing:
            return
        }
    }

    /// The running server's address, once started.
    public var running: RunningServer? {
        lifecycle.withLockedValue { $0.running }.map { RunningServer(server: self, host: $0.host, port: $0.port) }
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
