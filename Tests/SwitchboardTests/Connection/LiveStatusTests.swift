import Foundation
import NIOConcurrencyHelpers
import Observation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard
import SwitchboardTesting

/// ``LiveStatus`` following a ``Connection``: every transition as a SwiftUI view would observe
/// it (through Observation, on the main actor), and its lifetime.
@Suite("Live status of a connection")
@MainActor
struct ConnectionLiveStatusTests {
    @Test func followsConnectLossFailedAttemptAndReconnectInOrder() async throws {
        let server = InMemoryServer()
        let connection = makeConnection(server)
        let status = LiveStatus(following: connection)
        #expect(status.state == .created)
        #expect(status.reconnectAttempts == 0)
        #expect(status.lastError == nil)
        #expect(status.isFollowing)

        try await withTimeout(10, "connect") { try await connection.connect() }
        try await waitUntil("connected") { status.state == .connected }
        #expect(status.lastError == nil)
        #expect(status.recovered == nil, "the in-memory transport has no session recovery")

        server.dropConnections(reason: "cable cut")
        try await waitUntil("the loss") { status.state == .disconnected }
        #expect(status.lastError == "cable cut")

        server.connectBehavior = .refuse("maintenance")
        await #expect(throws: ConnectionError.connectFailed("maintenance")) { try await connection.connect() }
        // The attempt is counted as `reconnecting` begins, before the state shows it: until the
        // attempt's own `disconnected` arrives, the state still shows the loss's (and its error).
        let refused = "\(ConnectionError.connectFailed("maintenance"))"
        try await waitUntil("the failed attempt") {
            status.reconnectAttempts == 1 && status.state == .disconnected && status.lastError == refused
        }

        server.connectBehavior = .accept
        try await withTimeout(10, "reconnect") { try await connection.connect() }
        try await waitUntil("connected again") { status.state == .connected }
        #expect(status.reconnectAttempts == 0, "the count starts over once connected")
        #expect(status.lastError == nil, "a successful connect clears the error")

        try await connection.disconnect()
        try await connection.release()
        try await waitUntil("released") { !status.isFollowing }
        #expect(status.state == .released)
    }

    @Test func everyObservedChangeComesInTheOrderItHappened() async throws {
        let server = InMemoryServer()
        let connection = makeConnection(server)
        let status = LiveStatus(following: connection)
        let seen = Seen()
        seen.track(status)
        try await withTimeout(10, "connect") { try await connection.connect() }
        server.dropConnections()
        try await connection.waitFor(.disconnected)
        try await withTimeout(10, "reconnect") { try await connection.connect() }
        try await connection.disconnect()
        try await connection.release()
        try await waitUntil("released") { !status.isFollowing }
        // A view may see fewer changes (several applied in one main-actor turn), never others
        // and never out of order.
        let happened: [ConnectionState] = [.created, .connected, .disconnected, .reconnecting, .connected, .disconnected, .released]
        #expect(seen.states.last == .released)
        #expect(isInOrder(seen.states, within: happened), "\(seen.states)")
    }

    @Test func showsTheTransportAndItsChangesWhileConnected() async throws {
        let server = InMemoryServer()
        let driver = NamedTransportDriver(server: server, name: "alpha")
        let connection = DriverConnection(configuration: ConnectionConfiguration(url: testURL), driver: driver)
        let status = LiveStatus(following: connection)
        #expect(status.transport == nil)
        try await withTimeout(10, "connect") { try await connection.connect() }
        try await waitUntil("the first transport") { status.transport == "alpha" }
        driver.switchTo("beta")
        try await waitUntil("the switch") { status.transport == "beta" }
        server.dropConnections()
        try await waitUntil("no transport once lost") { status.state == .disconnected && status.transport == nil }
        try await connection.release()
    }

    @Test func holdsNeitherTheConnectionNorItselfAndStopsWhenTheConnectionGoes() async throws {
        let server = InMemoryServer()
        weak var weakConnection: DriverConnection?
        weak var weakStatus: LiveStatus<ConnectionState>?
        var kept: LiveStatus<ConnectionState>?
        do {
            let connection = makeConnection(server)
            weakConnection = connection
            let status = LiveStatus(following: connection)
            let dropped = LiveStatus(following: connection)
            weakStatus = dropped
            try await withTimeout(10, "connect") { try await connection.connect() }
            try await waitUntil("connected") { status.state == .connected }
            try await connection.disconnect()
            try await waitUntil("disconnected") { status.state == .disconnected }
            kept = status
        }
        #expect(weakStatus == nil, "a model nobody holds is freed")
        // The connection was dropped without a release: its model stops following.
        let status = try #require(kept)
        try await waitUntil("the model stops following") { !status.isFollowing }
        #expect(weakConnection == nil, "the model does not keep the connection alive")
        #expect(status.state == .disconnected)
    }
}

/// Whether `seen` is `happened` with some elements left out.
private func isInOrder(_ seen: [ConnectionState], within happened: [ConnectionState]) -> Bool {
    var rest = happened[...]
    for state in seen {
        guard let index = rest.firstIndex(of: state) else { return false }
        rest = rest[(index + 1)...]
    }
    return true
}

/// The states a model went through, recorded by Observation as a view would see them.
@MainActor
private final class Seen {
    var states: [ConnectionState] = []

    func track(_ status: LiveStatus<ConnectionState>) {
        states.append(status.state)
        withObservationTracking { _ = status.state } onChange: { [weak self] in
            // `onChange` runs before the change: read the new value once it is set.
            Task { @MainActor in self?.track(status) }
        }
    }
}

/// The in-memory driver with a transport name the test changes.
private final class NamedTransportDriver: ConnectionDriver {
    private let base: InMemoryDriver
    private let state: NIOLockedValueBox<(name: String, open: Bool, watchers: [AsyncStream<Void>.Continuation])>

    init(server: InMemoryServer, name: String) {
        base = InMemoryDriver(server: server)
        state = NIOLockedValueBox((name, false, []))
    }

    var transportName: String? { state.withLockedValue { $0.open ? $0.name : nil } }

    func transportChanges() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        state.withLockedValue { $0.watchers.append(continuation) }
        return stream
    }

    func switchTo(_ name: String) {
        let watchers = state.withLockedValue { state in
            state.name = name
            return state.watchers
        }
        for watcher in watchers { watcher.yield() }
    }

    func open(onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {
        try await base.open { event in
            if case .closed = event { self.state.withLockedValue { $0.open = false } }
            onEvent(event)
        }
        state.withLockedValue { $0.open = true }
    }

    func close() async {
        state.withLockedValue { $0.open = false }
        await base.close()
    }

    func send(_ event: String, _ payload: JSONValue) async throws {
        try await base.send(event, payload)
    }

    func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
        try await base.request(event, payload, timeout: timeout)
    }
}
