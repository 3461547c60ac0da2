import Foundation
import NIOConcurrencyHelpers
import SocketIO
import SwitchboardTestSupport
import Testing

/// One row of the interop matrix: which independent server, over which transports.
struct InteropTarget: Sendable, CustomTestStringConvertible {
    enum Mode: String, Sendable, CaseIterable {
        /// Polling only.
        case polling
        /// Polling first, then the upgrade to WebSocket (socket.io's default).
        case upgrade
        /// WebSocket only.
        case websocket
    }

    let peer: PythonPeer.Kind
    let mode: Mode

    var testDescription: String { "\(peer), \(mode)" }

    /// python-socketio 5.x (Engine.IO v4) and 4.x (Engine.IO v3), each in three modes.
    static let all: [InteropTarget] = [PythonPeer.Kind.v5, .v3].flatMap { peer in
        Mode.allCases.map { InteropTarget(peer: peer, mode: $0) }
    }

    /// The Engine.IO revision the peer speaks.
    var version: EngineIOVersion { peer == .v5 ? .v4 : .v3 }

    /// Protocol v4 (python-socketio 4.x) has no CONNECT auth: the test server reads `token`
    /// from the Engine.IO query instead.
    var authTravelsInQuery: Bool { peer == .v3 }

    /// The shared server for this row, or `nil` (test skipped, loudly) when it is not installed.
    func server() async throws -> PythonPeer? {
        try await SharedPeers.shared.peer(peer)
    }

    func configuration() -> Manager.Configuration {
        var configuration = Manager.Configuration()
        configuration.version = .exactly(version)
        configuration.defaultAckTimeout = .seconds(10)
        configuration.connectTimeout = .seconds(10)
        switch mode {
        case .polling: configuration.transports = [.polling]
        case .upgrade: configuration.transports = [.polling, .websocket]
        case .websocket: configuration.transports = [.websocket]
        }
        return configuration
    }

    /// A manager for `server` and its socket on `namespace`, not yet connected.
    func manager(
        for server: PythonPeer, namespace: String = "/", auth: SocketAuth = .none,
        configure: (inout Manager.Configuration) -> Void = { _ in }
    ) throws -> (Manager, Socket) {
        var configuration = configuration()
        configure(&configuration)
        let manager = try Manager(url: URL(string: server.url)!, configuration: configuration)
        return (manager, manager.socket(namespace: namespace, auth: auth))
    }

    /// Connects and, in upgrade mode, waits until the session is on WebSocket, so every
    /// scenario below really runs over the transport the row names.
    func connect(_ manager: Manager, _ socket: Socket) async throws {
        let events = manager.events
        try await withTimeout(10, "connect") { try await socket.connect() }
        if mode == .upgrade && manager.transport != .websocket {
            _ = try await events.firstMatch(within: 10, "upgrade") { $0 == .upgrade }
        }
        let expected: EngineTransportKind = mode == .polling ? .polling : .websocket
        #expect(manager.transport == expected)
    }
}

/// Servers shared by the tests of one run (each python start costs about a second).
actor SharedPeers {
    static let shared = SharedPeers()
    private var running: [PythonPeer.Kind: PythonPeer] = [:]

    func peer(_ kind: PythonPeer.Kind) async throws -> PythonPeer? {
        if let peer = running[kind] { return peer }
        guard let peer = try await PythonPeer.start(kind) else { return nil }
        running[kind] = peer
        return peer
    }
}

/// Collects events in arrival order, for assertions after the fact.
final class EventLog: Sendable {
    private let events = NIOLockedValueBox<[SocketEvent]>([])

    func record(_ event: SocketEvent) { events.withLockedValue { $0.append(event) } }
    var all: [SocketEvent] { events.withLockedValue { $0 } }
    func named(_ name: String) -> [SocketEvent] { all.filter { $0.name == name } }
}
