import Foundation
import SwitchboardCore
import NIOConcurrencyHelpers
import NIOCore
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The hand-over from a connection's handlers to the async session: order, the end after the
/// last message, and reading paused while too many messages wait.
@Suite("Server WebSocket: inbound messages")
struct InboundPumpTests {
    /// Records what the pump asks of the connection's reading.
    final class Switches: Sendable {
        let values = NIOLockedValueBox<[Bool]>([])
        var readSwitch: ReadSwitch { ReadSwitch { reading in self.values.withLockedValue { $0.append(reading) } } }
    }

    private static func message(_ index: Int) -> WebSocketMessage { .text("\(index)") }

    @Test("every message reaches the consumer once, in order, one at a time; the end comes after the last")
    func order() async throws {
        let delivered = NIOLockedValueBox<[WebSocketMessage]>([])
        let inFlight = NIOLockedValueBox((now: 0, most: 0))
        let finished = AsyncStream<EngineCloseReason>.makeStream()
        let pump = InboundPump(
            reading: Switches().readSwitch,
            executor: nil,
            deliver: { message in
                inFlight.withLockedValue { $0.now += 1; $0.most = max($0.most, $0.now) }
                await Task.yield()
                delivered.withLockedValue { $0.append(message) }
                inFlight.withLockedValue { $0.now -= 1 }
            },
            finish: { reason in
                #expect(delivered.withLockedValue { $0.count } == 300, "the end after every message")
                finished.continuation.yield(reason)
                finished.continuation.finish()
            }
        )
        // In bursts, as reads come: the consumer's task ends between them and starts again.
        for burst in 0..<10 {
            for index in burst * 30..<(burst + 1) * 30 { pump.received(Self.message(index)) }
            await Task.yield()
        }
        pump.ended(.transportClose)
        pump.received(.text("after the end"))
        pump.ended(.transportError("a second end"))
        let reasons = try await withTimeout {
            var reasons: [EngineCloseReason] = []
            for await reason in finished.stream { reasons.append(reason) }
            return reasons
        }
        #expect(reasons == [.transportClose])
        #expect(delivered.withLockedValue { $0 } == (0..<300).map(Self.message))
        #expect(inFlight.withLockedValue { $0.most } == 1)
    }

    @Test("reading stops when 256 messages wait and starts again when 64 do")
    func backpressure() async throws {
        let switches = Switches()
        let gate = Gate()
        let started = AsyncStream<Void>.makeStream()
        let delivered = NIOLockedValueBox(0)
        let finished = AsyncStream<Void>.makeStream()
        let pump = InboundPump(
            reading: switches.readSwitch,
            executor: nil,
            deliver: { _ in
                started.continuation.yield()
                await gate.wait()
                delivered.withLockedValue { $0 += 1 }
            },
            finish: { _ in finished.continuation.finish() }
        )
        pump.received(Self.message(0))
        _ = try await withTimeout { await started.stream.first { _ in true } }
        // The first message is with the consumer; 255 more wait: still reading.
        for index in 1...255 { pump.received(Self.message(index)) }
        #expect(switches.values.withLockedValue { $0 }.isEmpty)
        pump.received(Self.message(256))
        #expect(switches.values.withLockedValue { $0 } == [false], "the 256th waiting message stops reading")
        for index in 257...299 { pump.received(Self.message(index)) }
        #expect(switches.values.withLockedValue { $0 } == [false], "stopped once")
        pump.ended(.transportClose)
        gate.open()
        try await withTimeout { for await _ in finished.stream {} }
        #expect(switches.values.withLockedValue { $0 } == [false, true])
        #expect(delivered.withLockedValue { $0 } == 300)
    }

    @Test("the opening runs first, in the task, however long it takes; messages and the end wait for it")
    func opening() async throws {
        let log = NIOLockedValueBox<[String]>([])
        let gate = Gate()
        let finished = AsyncStream<Void>.makeStream()
        let pump = InboundPump(
            reading: Switches().readSwitch,
            executor: nil,
            deliver: { message in
                if case .text(let text) = message { log.withLockedValue { $0.append(text) } }
            },
            finish: { _ in
                log.withLockedValue { $0.append("end") }
                finished.continuation.finish()
            }
        )
        pump.start {
            await gate.wait()
            log.withLockedValue { $0.append("open") }
        }
        pump.received(.text("a"))
        pump.received(.text("b"))
        pump.ended(.transportClose)
        #expect(log.withLockedValue { $0 }.isEmpty, "nothing before the opening, nothing on the caller's thread")
        gate.open()
        try await withTimeout { for await _ in finished.stream {} }
        #expect(log.withLockedValue { $0 } == ["open", "a", "b", "end"])

    }

    @Test("a mailbox hands messages to the reader that pulls them, then nil; reading pauses and resumes the same way")
    func mailbox() async throws {
        let switches = Switches()
        let mailbox = MessageMailbox(reading: switches.readSwitch)
        let waiting = Task { await mailbox.next() }
        mailbox.received(.text("first"))
        #expect(try await withTimeout { await waiting.value } == .text("first"))
        for index in 0..<300 { mailbox.received(Self.message(index)) }
        #expect(switches.values.withLockedValue { $0 } == [false])
        mailbox.ended(.transportClose)
        mailbox.received(.text("after the end"))
        var read: [WebSocketMessage] = []
        while let message = await mailbox.next() { read.append(message) }
        #expect(read == (0..<300).map(Self.message))
        #expect(switches.values.withLockedValue { $0 } == [false, true])

        let cancelled = MessageMailbox(reading: switches.readSwitch)
        let reader = Task { await cancelled.next() }
        reader.cancel()
        #expect(try await withTimeout { await reader.value } == nil, "a cancelled reader gets nil")
    }
}
