import SocketIOProtocol

/// What a transport reports to the engine that owns it. Events arrive one at a time, in order.
enum TransportEvent: Sendable {
    /// A packet arrived.
    case packet(EnginePacket)
    /// The transport ended; it reports nothing after this.
    case ended(EngineCloseReason)
}

/// A way to carry Engine.IO packets: WebSocket now, HTTP long-polling next to it.
///
/// A transport starts connecting on ``start()`` — after the engine installed it, so nothing it
/// reports can arrive before the engine knows it — and reports through the handler it was given.
/// `send` keeps order across calls; `close` ends it without a further `ended` event being needed
/// by the engine (which already knows).
protocol EngineTransport: AnyObject, Sendable {
    /// The transport's name as the `transport` query parameter spells it.
    var name: String { get }
    /// Starts connecting (call once, after the engine installed the transport).
    func start()
    /// Writes packets in order.
    func send(_ packets: [EnginePacket])
    /// Writes packets in order once the peer has read everything written before them (a
    /// WebSocket ping answered; a POST answered), so they reach it in a later read. For the
    /// namespace DISCONNECT: socket.io's Node server drops events read together with it.
    func sendAfterPeerRead(_ packets: [EnginePacket])
    /// Ends the transport, after writing what was already handed to `send`.
    func close()
    /// Returns once the transport's connection is closed (at once if it never opened).
    func waitUntilClosed() async
}
