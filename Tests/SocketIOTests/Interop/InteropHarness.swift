import Foundation
import NIOConcurrencyHelpers
import SocketIO
import Testing

/// One row of the interop matrix: which independent server, over which transport.
///
/// The client core speaks Engine.IO v4 over WebSocket; the Engine.IO issue adds polling, the
/// upgrade and protocol v3, as more rows of this same table.
struct InteropTarget: Sendable, CustomTestStringConvertible {
    let peer: PythonPeer.Kind
    let version: EngineIOVersion

    var testDescription: String { "\(peer) over WebSocket, \(version)" }

    static let all: [InteropTarget] = [
        InteropTarget(peer: .v5, version: .v4),
    ]
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

extension InteropTarget {
    /// The shared server for this row, or `nil` (test skipped, loudly) when it is not installed.
    func server() async throws -> PythonPeer? {
        try await SharedPeers.shared.peer(peer)
    }

    func configuration() -> Manager.Configuration {
        var configuration = Manager.Configuration()
        configuration.version = version
        configuration.defaultAckTimeout = .seconds(10)
        configuration.connectTimeout = .seconds(10)
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
}

/// Collects events in arrival order, for assertions after the fact.
final class EventLog: Sendable {
    private let events = NIOLockedValueBox<[SocketEvent]>([])

    func record(_ event: SocketEvent) { events.withLockedValue { $0.append(event) } }
    var all: [SocketEvent] { events.withLockedValue { $0 } }
    func named(_ name: String) -> [SocketEvent] { all.filter { $0.name == name } }
}
