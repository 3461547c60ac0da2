import NIOConcurrencyHelpers
import SocketIOProtocol
@testable import SocketIOServer
import Testing

/// What waits for a namespace whose CONNECT is being handled: held in order, the reader parked
/// past the limit and woken when the packets are handed on.
@Suite struct ClientSocketsTests {
    static func event(_ n: Int) -> SocketPacket {
        SocketPacket(kind: .event, namespace: "/slow", data: .array([.string("n"), .number(Double(n))]))
    }

    @Test func pastTheLimitTheReaderWaitsUntilThePacketsAreHandedOn() async throws {
        let sockets = NIOLockedValueBox(ClientSockets())
        #expect(sockets.withLockedValue { $0.beginJoining("/slow") })
        #expect(!sockets.withLockedValue { $0.beginJoining("/slow") }, "one CONNECT at a time")
        for n in 0..<(ClientSockets.pendingLimit - 1) {
            guard case .held = sockets.withLockedValue({ $0.route(Self.event(n), to: "/slow") }) else {
                Issue.record("packet \(n) was not held")
                return
            }
        }
        guard case .heldFull = sockets.withLockedValue({ $0.route(Self.event(255), to: "/slow") }) else {
            Issue.record("the limit was not reached")
            return
        }
        guard case .notJoined = sockets.withLockedValue({ $0.route(Self.event(0), to: "/other") }) else {
            Issue.record("a namespace never asked for")
            return
        }
        let parked = Task {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                sockets.withLockedValue { $0.waitForRoom(continuation) }?.resume()
            }
        }
        while !sockets.withLockedValue({ $0.readerWaits }) { await Task.yield() }
        let taken = sockets.withLockedValue { $0.takePending("/slow") }
        #expect(taken?.pending == (0..<ClientSockets.pendingLimit).map(Self.event), "all of them, in order")
        #expect(taken?.wake != nil, "taking them wakes the reader")
        taken?.wake?.resume()
        await parked.value
        #expect(sockets.withLockedValue { $0.takePending("/slow") } == nil, "refused: nothing more, and no longer held")
        #expect(sockets.withLockedValue { $0.beginJoining("/slow") }, "it may be asked for again")
    }
}
