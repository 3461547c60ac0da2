import Foundation
import SocketIO
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport

/// Several servers joined by one cluster transport, each with one client of ours connected to
/// `/`. Every server's `/` handles:
/// - `join` (room) → joins, acks the room;
/// - `to-room` (room, text) → `namespace.to(room).emit("room-message", text)`, acks;
/// - `all` (text) → `namespace.emit("news", text)`, acks.
struct ClusterHarness: Sendable {
    let servers: [DemoServer]
    let managers: [Manager]
    let sockets: [SocketIO.Socket]

    var namespaces: [Namespace] { servers.map { $0.server.namespace("/") } }

    /// Starts `transports.count` servers, one per transport, waits until each knows all, then
    /// connects a client to each.
    static func start(transports: [any ClusterTransport], options: ClusterOptions = ClusterOptions()) async throws -> ClusterHarness {
        var servers: [DemoServer] = []
        for transport in transports {
            servers.append(try await DemoServer.start({ $0.adapter = .cluster(transport, options) }, installingDemo: false, setup: install))
        }
        for server in servers {
            let namespace = server.server.namespace("/")
            try await withTimeout(15, "every server sees the others") { await namespace.waitForServers(transports.count) }
        }
        var managers: [Manager] = []
        var sockets: [SocketIO.Socket] = []
        for server in servers {
            var configuration = Manager.Configuration()
            configuration.transports = [.websocket]
            let manager = try Manager(url: server.url, configuration: configuration)
            let socket = manager.socket(namespace: "/")
            try await withTimeout(10, "connect") { try await socket.connect() }
            managers.append(manager)
            sockets.append(socket)
        }
        return ClusterHarness(servers: servers, managers: managers, sockets: sockets)
    }

    /// Starts a cluster, runs `body`, stops every server and client (also when `body` throws).
    static func with(
        transports: [any ClusterTransport],
        options: ClusterOptions = ClusterOptions(),
        _ body: (ClusterHarness) async throws -> Void
    ) async throws {
        let harness = try await start(transports: transports, options: options)
        do {
            try await body(harness)
            await harness.stop()
        } catch {
            await harness.stop()
            throw error
        }
    }

    func stop() async {
        for manager in managers { await manager.close() }
        for server in servers { await server.stop() }
    }

    private static func install(_ server: SocketIOServer) {
        let namespace = server.namespace("/")
        namespace.onConnection { socket in
            socket.on("join") { event in
                guard let room = event.items.first?.stringValue else { return }
                socket.join(room)
                event.ack?.respond([.string(room)])
            }
            socket.on("to-room") { event in
                guard let room = event.items.first?.stringValue else { return }
                namespace.to(room).emit("room-message", items: Array(event.items.dropFirst()))
                event.ack?.respond([])
            }
            socket.on("all") { event in
                namespace.emit("news", items: event.items)
                event.ack?.respond([])
            }
        }
    }
}
