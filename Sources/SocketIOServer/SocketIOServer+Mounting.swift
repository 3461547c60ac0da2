public import HummingbirdCore
public import ServiceLifecycle
import Hummingbird
import Logging
import NIOCore
import SwitchboardCore

extension SocketIOServer {
    /// The HTTP server of a Hummingbird 2 application that also serves this Socket.IO server, on
    /// the application's port: requests for the Engine.IO paths (``Configuration/path``, and any
    /// raw Engine.IO mount) and the WebSocket upgrades this server serves are answered here,
    /// everything else by the application's router, middleware and all.
    ///
    /// ```swift
    /// let app = Application(router: router, server: socketIO.httpServer(), configuration: …)
    /// try await ServiceGroup(services: [app, socketIO.service], logger: logger).run()
    /// ```
    ///
    /// Run ``service`` beside the application for the server's own life (its cluster, and closing
    /// its sessions on a graceful shutdown). Use this or ``start(host:port:)``, not both. One
    /// WebSocket upgrader serves a connection, so the application's own WebSocket routes (through
    /// HummingbirdWebSocket) need another port.
    public func httpServer() -> HTTPServerBuilder {
        let core = self.core
        let configuration = self.configuration
        let engine = Self.engineResponder(core)
        let idleTimeout = Duration.milliseconds(configuration.connectionIdleTimeout.wholeMilliseconds)
        let headTimeout = TimeAmount.milliseconds(configuration.requestHeadTimeout.wholeMilliseconds)
        return HTTPServerBuilder { application in
            EngineChildChannel(
                responder: { request, writer, channel in
                    if EngineRoute.mount(for: request.uri.path, among: core.mounts) != nil {
                        try await engine(request, writer, channel)
                    } else {
                        try await application(request, writer, channel)
                    }
                },
                core: core,
                idleTimeout: idleTimeout,
                headTimeout: headTimeout
            )
        }
    }

    /// The server's part of a mounted application's life (see ``httpServer()``), for the
    /// application's `ServiceGroup`: it joins the cluster when it starts and, on the group's
    /// graceful shutdown, leaves it and closes every session (clients see `server shutting
    /// down`). Put it after the application in the group, so it is shut down first: its
    /// sessions then close before the HTTP server waits for its connections to finish.
    public var service: some Service {
        MountedService(core: core)
    }

    /// Engine.IO's HTTP side as a Hummingbird responder closure, the way `Application` runs a
    /// responder (a context from the channel, a 500 for an unexpected error).
    static func engineResponder(_ core: ServerCore) -> HTTPChannelHandler.Responder {
        let responder = EngineResponder(core: core)
        let logger = core.environment.logger
        return { request, writer, channel in
            let context = EngineRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
            let response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch {
                logger.debug("Engine.IO request failed", metadata: ["error.type": "\(error)"])
                response = Response(status: .internalServerError)
            }
            try await writer.write(response: response.head, body: response.body)
        }
    }
}

/// ``SocketIOServer/service``: the cluster while the application runs, the sessions closed when
/// it shuts down gracefully.
struct MountedService: Service {
    let core: ServerCore

    func run() async throws {
        try await core.namespaces.startClusters()
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled: the group is going down without grace; close what is open all the same.
        }
        await core.namespaces.stopClusters()
        core.closeAll()
        await core.webSockets.closed(within: ServerListener.gracefulShutdownLimit)
    }
}
