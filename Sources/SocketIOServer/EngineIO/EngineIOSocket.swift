public import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// One message on a raw Engine.IO session.
public enum EngineIOMessage: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary(Data)
}

/// The HTTP request that opened a raw Engine.IO session.
public struct EngineIORequest: Sendable {
    /// Its headers, names in lower case (repeated headers joined with `, `).
    public let headers: [String: String]
    /// Its query parameters (`EIO`, `transport` and the app's own).
    public let query: [String: String]
    /// The client's address (`127.0.0.1:53122`), when known.
    public let address: String?
    /// Its target (`/engine.io/?EIO=4&transport=polling`).
    public let url: String
    /// When the session opened.
    public let time: Date
}

/// One client of a raw Engine.IO endpoint (``SocketIOServer/engineIO(at:onConnection:)``): the
/// transport layer under Socket.IO — handshake, heartbeat, long-polling, WebSocket and the
/// upgrade between them — with no namespaces, events or acks on top. Messages are strings or
/// bytes, in order, each way.
///
/// ```swift
/// server.engineIO(at: "/engine.io/") { socket in
///     socket.onMessage { message in
///         switch message {
///         case .text(let text): socket.send(text)      // an echo
///         case .binary(let data): socket.send(data)
///         }
///     }
///     socket.onClose { reason in print(socket.id, "closed:", reason) }
/// }
/// ```
///
/// Set the handlers inside `onConnection`: it runs before the session's first message is read,
/// so none is missed. Messages are handed over one at a time from the transport's task: a slow
/// handler slows that client's reading (and only that client's).
public final class EngineIOSocket: Sendable {
    private struct State {
        var onMessage: (@Sendable (EngineIOMessage) async -> Void)?
        var onClose: (@Sendable (String) -> Void)?
        var closeReason: String?
    }

    let session: EngineSession
    private let onConnection: @Sendable (EngineIOSocket) -> Void
    private let state = NIOLockedValueBox(State())

    /// The session id (`sid`).
    public var id: String { session.sid }
    /// The request that opened the session.
    public let request: EngineIORequest

    init(session: EngineSession, onConnection: @escaping @Sendable (EngineIOSocket) -> Void) {
        self.session = session
        self.onConnection = onConnection
        let info = session.request
        self.request = EngineIORequest(headers: info.headers, query: info.query, address: info.address, url: info.url, time: info.time)
    }

    /// The transport carrying the session now (polling until an upgrade completes).
    public var transport: SocketIOServer.TransportKind { session.currentTransport }

    /// Whether the session has closed.
    public var isClosed: Bool { state.withLockedValue { $0.closeReason != nil } }

    /// Handles every message from the client, in order (replaces an earlier handler).
    public func onMessage(_ handler: @escaping @Sendable (EngineIOMessage) async -> Void) {
        state.withLockedValue { $0.onMessage = handler }
    }

    /// Called once when the session closes, with the reason (`transport close`, `ping timeout`,
    /// `forced close`, …); at once if it already has.
    public func onClose(_ handler: @escaping @Sendable (String) -> Void) {
        let closed: String? = state.withLockedValue { state in
            if let reason = state.closeReason { return reason }
            state.onClose = handler
            return nil
        }
        if let closed { handler(closed) }
    }

    /// Sends a text message. `false` when the session is closed or the client does not drain
    /// what it is sent (its queue overflowed: the session closes).
    @discardableResult
    public func send(_ text: String) -> Bool {
        session.send([.message(text)])
    }

    /// Sends a binary message (a binary WebSocket frame; `b` + base64 over polling).
    @discardableResult
    public func send(_ data: Data) -> Bool {
        session.send([EngineFrame(kind: .binary, bytes: ByteBuffer(bytes: data))])
    }

    /// Closes the session (the client hears a `close` packet where the transport allows).
    public func close() {
        session.close(.forcedClose)
    }
}

extension EngineIOSocket: EngineApplication {
    func start() {
        onConnection(self)
    }

    func receive(text: Substring) async {
        guard let handler = state.withLockedValue({ $0.onMessage }) else { return }
        await handler(.text(String(text)))
    }

    func receive(binary: Data) async {
        guard let handler = state.withLockedValue({ $0.onMessage }) else { return }
        await handler(.binary(binary))
    }

    func engineClosed(_ reason: EngineCloseReason) {
        let handler = state.withLockedValue { state -> (@Sendable (String) -> Void)? in
            guard state.closeReason == nil else { return nil }
            state.closeReason = reason.description
            defer { state.onClose = nil; state.onMessage = nil }
            return state.onClose
        }
        handler?(reason.description)
    }
}
