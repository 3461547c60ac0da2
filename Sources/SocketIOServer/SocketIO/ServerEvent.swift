public import SocketIOProtocol

/// An event a client sent, as ``ServerSocket/on(_:_:)`` handlers see it (the same type as the
/// client's `SocketEvent`).
///
/// ```swift
/// socket.on("echo") { event in
///     socket.emit("echo", items: event.items)
///     event.ack?.respond(event.items)   // only when the client asked for an ack
/// }
/// ```
public typealias ServerEvent = SocketEvent

/// Answers one client event that asked for an acknowledgement (the client's `AckResponder`).
public typealias ServerAckResponder = AckResponder

/// Identifies a handler added with ``ServerSocket/on(_:_:)``, for `ServerSocket.off(_:)` (the one taking an ID).
public typealias ServerListenerID = ListenerID
