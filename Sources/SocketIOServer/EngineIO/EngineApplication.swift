import Foundation

/// What runs on an Engine.IO session: the Socket.IO layer (``ClientConnection``) or a raw
/// Engine.IO application (``EngineIOSocket``). The session hands it messages one at a time, in
/// order, from the transport's task, and tells it once when the session closed.
protocol EngineApplication: AnyObject, Sendable {
    /// The session is registered and its heartbeat runs.
    func start()
    /// A text message (without Engine.IO's `4`).
    func receive(text: Substring) async
    /// A binary message.
    func receive(binary: Data) async
    /// The session closed (once).
    func engineClosed(_ reason: EngineCloseReason)
}

extension ClientConnection: EngineApplication {}
