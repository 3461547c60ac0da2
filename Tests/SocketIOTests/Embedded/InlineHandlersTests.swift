import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import SocketIO
import SocketIOProtocol
import SwitchboardTestSupport
import Testing

/// `HandlerExecutor.inline`: handlers run on the connection's event loop as events arrive, in
/// order, and may emit from there; `Manager.taskExecutor`: code that prefers it runs there too,
/// and an awaited acknowledgement resumes it there.
@Suite("Inline handlers and the event-loop task executor")
struct InlineHandlersTests {
    @Test func handlersRunInOrderOnTheEventLoopAndMayEmit() async throws {
        let harness = try await EmbeddedHarness.start()
        var configuration = Manager.Configuration()
        configuration.handlerExecutor = .inline
        configuration.transports = [.websocket]
        let manager = try Manager(url: harness.url, configuration: configuration)
        let socket = manager.socket()
        let seen = NIOLockedValueBox<(numbers: [Int], offLoop: Int)>(([], 0))
        let done = AsyncStream<Void>.makeStream()
        socket.on("echo") { event in
            let onLoop = MultiThreadedEventLoopGroup.currentEventLoop != nil
            let count = seen.withLockedValue { seen in
                seen.numbers.append(event.items.first?.intValue ?? -1)
                if !onLoop { seen.offLoop += 1 }
                return seen.numbers.count
            }
            // Emitting from an inline handler: the next number goes out from the event loop.
            if count < 200 { try? socket.emit("echo", .number(Double(count))) } else { done.continuation.finish() }
        }
        try await withTimeout(20, "connect") { try await socket.connect() }
        try socket.emit("echo", 0)
        try await withTimeout(30, "200 echoes") { for await _ in done.stream {} }
        let result = seen.withLockedValue { $0 }
        #expect(result.numbers == Array(0..<200), "in order, each once")
        #expect(result.offLoop == 0, "every handler ran on an event loop")
        await manager.close()
        await harness.stop()
    }

    @Test func codePreferringTheManagersExecutorRunsOnItsEventLoopAcrossAwaitedAcks() async throws {
        let harness = try await EmbeddedHarness.start()
        var configuration = Manager.Configuration()
        configuration.transports = [.websocket]
        let manager = try Manager(url: harness.url, configuration: configuration)
        let socket = manager.socket()
        try await withTimeout(20, "connect") { try await socket.connect() }
        let offLoop = try await withTaskExecutorPreference(manager.taskExecutor) { () async throws -> Int in
            var offLoop = 0
            for number in 0..<50 {
                if MultiThreadedEventLoopGroup.currentEventLoop == nil { offLoop += 1 }
                let reply = try await socket.emitWithAck("echo", .number(Double(number)))
                #expect(reply == [.number(Double(number))])
            }
            if MultiThreadedEventLoopGroup.currentEventLoop == nil { offLoop += 1 }
            return offLoop
        }
        #expect(offLoop == 0, "before and after every awaited ack, on the event loop")
        await manager.close()
        await harness.stop()
    }
}
