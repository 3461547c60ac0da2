public import Foundation
public import SwitchboardCore
import NIOCore

/// One connection to the plain WebSocket endpoint (``SocketIOServer/Configuration/plainWebSocketPath``).
///
/// ```swift
/// server.onPlainWebSocket { connection in
///     for try await message in connection.messages {
///         if case .text(let text) = message { connection.send("echo: " + text) }
///     }
/// }
/// ```
///
/// The connection closes when the handler returns. Sends never block: they queue, bounded by
/// ``SocketIOServer/Configuration/maxQueuedBytes`` (a client that falls further behind is
/// disconnected).
public final class PlainWebSocketConnection: Sendable {
    /// A random id for logs.
    public let id: String
    /// The upgrade request's headers, names in lower case.
    public let headers: [String: String]
    /// The upgrade request's query parameters.
    public let query: [String: String]
    /// The client's address, when known.
    public let address: String?
    /// The messages the client sends, in order; iterate it once.
    public let messages: PlainWebSocketMessages
    private let writer: WebSocketWriter

    init(id: String, request: RequestInfo, messages: PlainWebSocketMessages, writer: WebSocketWriter) {
        self.id = id
        self.headers = request.headers
        self.query = request.query
        self.address = request.address
        self.messages = messages
        self.writer = writer
    }

    /// Sends a text message; `false` when the connection is closed (or was too far behind).
    @discardableResult
    public func send(_ text: String) -> Bool {
        writer.send(CollectionOfOne(EngineFrame.text(text)))
    }

    /// Sends a binary message; `false` when the connection is closed (or was too far behind).
    @discardableResult
    public func send(_ data: Data) -> Bool {
        writer.send(CollectionOfOne(EngineFrame(kind: .binary, bytes: ByteBuffer(bytes: data))))
    }

    /// Closes the connection (normal closure).
    public func close() {
        writer.close()
    }

    /// Whether the connection is closed (or closing).
    public var isClosed: Bool { writer.isClosed }
}

/// A message on the plain WebSocket endpoint: the one `WebSocketMessage` of client and server.
public typealias PlainWebSocketMessage = WebSocketMessage

/// The messages of a ``PlainWebSocketConnection``; ends when the client closes.
public struct PlainWebSocketMessages: AsyncSequence, Sendable {
    /// What the sequence yields.
    public typealias Element = PlainWebSocketMessage

    let mailbox: MessageMailbox

    /// Iterates the sequence.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let mailbox: MessageMailbox

        /// The next message, or `nil` once the connection closed.
        public mutating func next() async throws -> PlainWebSocketMessage? {
            switch await mailbox.next() {
            case nil: return nil
            case .text(let text): return .text(text)
            case .binary(let data): return .binary(data)
            }
        }
    }

    /// An iterator over the sequence.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(mailbox: mailbox)
    }
}


