import Foundation
import NIOConcurrencyHelpers
import SocketIOProtocol
import Switchboard
import SwitchboardTestSupport
import Testing

/// A test-only connection: `push` delivers an event to whoever listens through `events(named:)`.
private final class PushConnection: Connection {
    let url = URL(string: "memory://messages")!
    let id = ConnectionID(rawValue: 1)
    var state: ConnectionState { .connected }
    private let listeners = NIOLockedValueBox<[(event: String, continuation: AsyncStream<JSONValue>.Continuation)]>([])

    func stateChanges() -> AsyncStream<ConnectionState> { AsyncStream { $0.yield(.connected) } }
    func connect() async throws {}
    func disconnect() async throws {}
    func send(_ event: String, _ payload: JSONValue) async throws {}
    func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response { Response(values: []) }

    func events(named event: String) -> AsyncStream<JSONValue> {
        let (stream, continuation) = AsyncStream<JSONValue>.makeStream()
        listeners.withLockedValue { $0.append((event, continuation)) }
        return stream
    }

    func push(_ event: String, _ payload: JSONValue) {
        for listener in listeners.withLockedValue({ $0 }) where listener.event == event {
            listener.continuation.yield(payload)
        }
    }

    /// Ends every event stream, as a released connection does.
    func release() {
        for listener in listeners.withLockedValue({ $0 }) { listener.continuation.finish() }
    }
}

@Suite("MessageCenter feeding")
struct MessageCenterFeedingTests {
    @Test func attachedToAConnectionEvent() async throws {
        let center = MessageCenter()
        let connection = PushConnection()
        let delivered = center.messages()
        let feed = center.attach(to: connection, event: "message")
        connection.push("message", orderMessage("1", order: "A"))
        connection.push("other", orderMessage("2", order: "A"))            // another event: not fed
        connection.push("message", .string(orderMessage("3", order: "A").jsonString))   // serialized JSON
        let received = try await delivered.first(2, "the fed messages")
        #expect(received.map(\.id) == ["1", "3"])
        connection.release()
        let completion = try await withTimeout(10, "the feed's end") { await feed.completion }
        #expect({ if case .sourceEnded = completion { true } else { false } }())
    }

    @Test func malformedInputIsCountedAndLoggedNeverFatal() async throws {
        let logged = LogRecorder()
        let center = MessageCenter(logger: logged.logger)
        let (source, input) = AsyncStream<JSONValue>.makeStream()
        let delivered = center.messages()
        center.feed(from: source)
        for bad: JSONValue in ["{not json", "\"a JSON string\"", 42, .null, ["msg_id": "x"], ["msg_id": [1], "msg_body": 1]] {
            input.yield(bad)
        }
        input.yield(message("ok", "after the garbage"))
        let received = try await delivered.first(1, "the good message after the bad ones")
        #expect(received.first?.id == "ok")
        #expect(center.statistics.rejected == 6)
        #expect(logged.messages.count == 6)
        #expect(logged.messages.first?.contains("not JSON") == true)
        input.finish()
    }

    @Test func cancellingTheFeedStopsDispatching() async throws {
        let center = MessageCenter()
        let delivered = center.messages()
        let (source, input) = AsyncStream<JSONValue>.makeStream()
        let feed = center.feed(from: source)
        input.yield(message("1", "x"))
        _ = try await delivered.first(1, "the first message")
        feed.cancel()
        let completion = try await withTimeout(10, "the cancelled feed's end") { await feed.completion }
        #expect({ if case .cancelled = completion { true } else { false } }())
        input.yield(message("2", "after cancel"))
        await Task.yield()
        #expect(center.statistics.dispatched == 1, "nothing is dispatched once the feed has ended")
    }

    @Test func aFailingSourceEndsTheFeedWithItsError() async throws {
        struct SourceBroke: Error {}
        let center = MessageCenter()
        let (source, input) = AsyncThrowingStream<JSONValue, any Error>.makeStream()
        let delivered = center.messages()
        let feed = center.feed(from: source)
        input.yield(message("1", "x"))
        input.finish(throwing: SourceBroke())
        let completion = try await withTimeout(10, "the failed feed's end") { await feed.completion }
        #expect({ if case .failed(let error) = completion { error is SourceBroke } else { false } }())
        #expect(try await delivered.first(1).map(\.id) == ["1"])
    }

    @Test func dispatchingRawText() async {
        let center = MessageCenter()
        let outcome = await center.dispatch(text: #"{"msg_id":"00544","msg_body":{"extra":{"order_no":"TAINIUBILE1234"}}}"#)
        #expect(outcome.delivery?.message["msg_body.extra.order_no"] == "TAINIUBILE1234")
        let bad = await center.dispatch(text: #"{"msg_id":"#)
        guard case .rejected(.invalidJSON(let error)) = bad else {
            Issue.record("expected invalid JSON, got \(bad)")
            return
        }
        #expect(error.kind == .unexpectedEnd)
    }
}
