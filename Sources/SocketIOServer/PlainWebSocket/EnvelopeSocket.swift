import SwitchboardCore
import NIOConcurrencyHelpers
public import SocketIOProtocol

/// A plain WebSocket connection that speaks the JSON `Envelope` (what Switchboard's
/// `WebSocketDriver` talks): named events both ways, and requests answered by replies.
///
/// ```swift
/// server.onPlainWebSocket { connection in
///     let socket = EnvelopeSocket(connection)
///     socket.onRequest("echo") { payload in [payload] }         // {"type":"reply","id":…,"data":[payload]}
///     socket.on("hello") { payload in socket.emit("welcome", payload) }
///     try await socket.run()                                      // until the client closes
/// }
/// ```
///
/// Handlers run one at a time, in arrival order, on the task that called ``run()``: start a
/// `Task` for slow work. A request for an event with no handler gets an `error` envelope; an
/// `event` nobody handles is dropped (as Socket.IO does). A message that is not a valid envelope
/// gets an `error` envelope without an id, and the connection stays open, so a person typing
/// into a WebSocket console sees what was wrong.
public final class EnvelopeSocket: Sendable {
    typealias Handler = @Sendable (JSONValue) async throws -> [JSONValue]

    /// The plain WebSocket underneath.
    public let connection: PlainWebSocketConnection
    private let handlers = NIOLockedValueBox<[String: Handler]>([:])

    /// Speaks the envelope on `connection`; call ``run()`` once the handlers are set.
    public init(_ connection: PlainWebSocketConnection) {
        self.connection = connection
    }

    /// The connection's id (for logs).
    public var id: String { connection.id }

    /// Handles `event`, with or without a reply wanted: a `request` for it gets an empty reply
    /// once `handler` returns. Replaces an earlier handler of `event`.
    public func on(_ event: String, _ handler: @escaping @Sendable (JSONValue) async throws -> Void) {
        handlers.withLockedValue { handlers in
            handlers[event] = { payload in
                try await handler(payload)
                return []
            }
        }
    }

    /// Answers requests for `event` with the values `handler` returns (an `event` envelope runs
    /// it too and drops the values); a handler that throws sends an `error` envelope naming the
    /// error. Replaces an earlier handler of `event`.
    public func onRequest(_ event: String, _ handler: @escaping @Sendable (JSONValue) async throws -> [JSONValue]) {
        handlers.withLockedValue { $0[event] = handler }
    }

    /// Sends an `event` envelope; `false` when the connection is closed (or too far behind).
    @discardableResult
    public func emit(_ event: String, _ data: JSONValue = nil, seq: UInt64? = nil) -> Bool {
        send(.event(name: event, data: data, seq: seq))
    }

    /// Sends any envelope; `false` when the connection is closed (or too far behind).
    @discardableResult
    public func send(_ envelope: Envelope) -> Bool {
        connection.send(envelope.text)
    }

    /// Closes the connection (normal closure).
    public func close() {
        connection.close()
    }

    /// Reads and dispatches messages until the client closes the connection, then forgets the
    /// handlers: they usually capture this socket, and kept they would keep it, its connection
    /// and the connection's buffers for good (a cycle, a leak per connection).
    public func run() async throws {
        defer { handlers.withLockedValue { $0 = [:] } }
        for try await message in connection.messages {
            let envelope: Envelope
            do {
                envelope = try Envelope(webSocketText: message.textPayload)
            } catch {
                send(.error(id: nil, message: "\(error)"))
                continue
            }
            await dispatch(envelope)
        }
    }

    private func dispatch(_ envelope: Envelope) async {
        switch envelope {
        case .event(let name, let data, _):
            guard let handler = handlers.withLockedValue({ $0[name] }) else { return }
            do {
                _ = try await handler(data)
            } catch {
                send(.error(id: nil, message: "\(name) failed: \(error)"))
            }
        case .request(let name, let data, let id, _):
            guard let handler = handlers.withLockedValue({ $0[name] }) else {
                send(.error(id: id, message: "no handler for \"\(name)\""))
                return
            }
            do {
                send(.reply(id: id, data: try await handler(data)))
            } catch {
                send(.error(id: id, message: "\(error)"))
            }
        case .reply, .error, .ack:
            // This socket sends no requests and numbers nothing, so there is nothing to settle.
            return
        case .resume(let channel, _), .resumed(let channel, _):
            // Reliable channels are not served on this endpoint (yet: issue 16).
            send(.error(id: nil, message: "no reliable channel \"\(channel)\" here"))
        }
    }
}
