import Foundation
import NIOConcurrencyHelpers
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// An auth provider runs before each CONNECT; one that finishes after its CONNECT was given up
/// (the namespace's `connectTimeout` passed) belongs to that attempt, not to the next one. Before,
/// its failure failed the next `connect()` ("auth provider failed"), and its success sent a second
/// CONNECT with the earlier attempt's token.
@Suite(.timeLimit(.minutes(1)))
struct AuthProviderAttemptTests {
    struct Refused: Error {}

    @Test func aProviderFinishingAfterItsAttemptWasGivenUpLeavesTheNextAttemptAlone() async throws {
        let harness = try await EmbeddedHarness.start()
        let tokens = NIOLockedValueBox<[String]>([])
        harness.server.namespace("/auth").use { handshake in
            tokens.withLockedValue { $0.append(handshake.auth?["token"]?.stringValue ?? "none") }
        }
        let clock = ManualClock()
        var configuration = Manager.Configuration()
        configuration.connectTimeout = NamespaceConnectTimeoutTests.timeout
        configuration.clock = clock
        let manager = try Manager(url: harness.url, configuration: configuration)
        // `/` keeps the session open, so both attempts' CONNECTs go on it.
        try await withTimeout(30, "connecting /") { try await manager.socket(namespace: "/").connect() }

        // Each call of the provider waits for its own gate; the first then fails.
        let (firstGate, secondGate) = (Gate(), Gate())
        let calls = NIOLockedValueBox(0)
        let entered = AsyncStream.makeStream(of: Int.self)
        let returned = AsyncStream.makeStream(of: Void.self)
        let socket = manager.socket(namespace: "/auth", auth: .provider { () async throws -> JSONObject? in
            let call = calls.withLockedValue { $0 += 1; return $0 }
            entered.continuation.yield(call)
            if call == 1 {
                await firstGate.wait()
                returned.continuation.yield()
                throw Refused()
            }
            await secondGate.wait()
            return ["token": "fresh"]
        })
        var calling = entered.stream.makeAsyncIterator()

        // The first attempt is given up while its provider still runs.
        let first = Task { try await socket.connect() }
        #expect(await calling.next() == 1)
        try await withTimeout(30, "the CONNECT's deadline") {
            await clock.waitForSleeper(dueAt: NamespaceConnectTimeoutTests.timeout)
        }
        clock.advance(by: NamespaceConnectTimeoutTests.timeout)
        await #expect(throws: SocketIOError.self) { try await withTimeout(30, "the first attempt") { try await first.value } }

        // The next attempt's provider is running when the first one's fails.
        let second = Task { try await socket.connect() }
        #expect(await calling.next() == 2)
        firstGate.open()
        _ = try await returned.stream.first(1, within: 30, "the first provider's end")
        secondGate.open()
        try await withTimeout(30, "the second attempt, on its own provider's token") { try await second.value }
        #expect(socket.connected)
        #expect(tokens.withLockedValue { $0 } == ["fresh"])
        await manager.close()
        await harness.stop()
    }
}
