import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
@testable import SocketIO
import SocketIOServer
import SwitchboardDemo
import SwitchboardTestSupport
import Testing

/// The server mounted on a Hummingbird application of the test's own: one port for the
/// application's routes and Socket.IO, one service group for both lives.
@Suite struct MountedApplicationTests {
    /// One HTTP/1.1 GET on a fresh connection: the status line and the body.
    static func get(_ path: String, port: Int) async throws -> (status: String, body: String) {
        let connection = try RawConnection.connect(port: port)
        defer { connection.close() }
        try connection.write("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        // The whole answer: the head, then a body as long as its Content-Length says.
        let text = try await withTimeout(10, "the answer to GET \(path)") {
            try await connection.read { bytes -> (String, consumed: Int)? in
                let text = String(decoding: bytes, as: UTF8.self)
                guard let split = text.range(of: "\r\n\r\n") else { return nil }
                let length = text[..<split.lowerBound].split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                guard text[split.upperBound...].utf8.count >= length else { return nil }
                return (text, bytes.count)
            }
        }
        let status = text.components(separatedBy: "\r\n").first ?? ""
        let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        return (status, body)
    }

    @Test func theAppsRoutesAndSocketIOShareOnePortAndOneShutdown() async throws {
        let socketIO = SocketIOServer()
        socketIO.namespace("/").onConnection { socket in
            socket.on("echo") { event in event.ack?.respond(event.items) }
        }
        let app = try await MountedApp.start(socketIO)

        let hello = try await Self.get("/hello", port: app.port)
        #expect(hello.status == "HTTP/1.1 200 OK")
        #expect(hello.body == "hello from the app")
        let missing = try await Self.get("/nowhere", port: app.port)
        #expect(missing.status == "HTTP/1.1 404 Not Found", "the application's router answers what is not Socket.IO's")

        // A real client: polling first, then the upgrade through the application's server.
        var configuration = Manager.Configuration()
        configuration.transports = [.polling, .websocket]
        configuration.reconnection = false
        let manager = try Manager(url: URL(string: "http://127.0.0.1:\(app.port)")!, configuration: configuration)
        let events = manager.events
        let socket = manager.socket()
        try await withTimeout(15, "connect over polling") { try await socket.connect() }
        _ = try await events.firstMatch(within: 15, "the upgrade") { $0 == .upgrade }
        #expect(manager.transport == .websocket)
        let reply = try await socket.timeout(.seconds(5)).emitWithAck("echo", "through the app")
        #expect(reply == ["through the app"])

        // The group's graceful shutdown closes both: the client hears it, the port closes.
        let statuses = socket.statusChanges
        await app.group.triggerGracefulShutdown()
        try await withTimeout(30, "the service group ends") { try await app.run.value }
        _ = try await statuses.firstMatch(within: 15, "the client disconnected") {
            if case .disconnected = $0 { true } else { false }
        }
        #expect(throws: (any Error).self, "nothing listens any more") { try RawConnection.connect(port: app.port).close() }
        await manager.close()
    }

    /// An independent client (python-socketio 5.x) runs every scenario of the demo application
    /// through the mounted endpoint, polling first and upgrading.
    @Test func pythonSocketIOsClientRunsEveryScenarioThroughTheMountedApp() async throws {
        var configuration = SocketIOServer.Configuration()
        configuration.pingInterval = .seconds(1)
        configuration.pingTimeout = .seconds(5)
        let quiet = Logger(label: "test.server") { _ in SwiftLogNoOpLogHandler() }
        let socketIO = SocketIOServer(configuration: configuration, logger: quiet)
        DemoApplication.install(on: socketIO, logger: quiet).cancel()
        let app = try await MountedApp.start(socketIO)
        defer { app.run.cancel() }
        let url = URL(string: "http://127.0.0.1:\(app.port)")!
        if let (results, log) = try await PythonClient.run(url: url, transport: "upgrade") {
            #expect(results.map(\.scenario) == PythonClient.scenarios, "client log:\n\(log)")
            for result in results {
                #expect(result.ok, "\(result.scenario): \(result.detail)")
            }
        }
        await app.group.triggerGracefulShutdown()
        try await withTimeout(30, "the service group ends") { try await app.run.value }
    }
}
