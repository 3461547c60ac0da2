import SocketIOProtocol
import WebSocketClient

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
/// Sending has two halves: ``enqueue(_:afterPeerRead:)`` queues packets in order and does no
/// I/O, so the engine calls it under its lock (which keeps sends in order across a transport
/// switch); the ``TransportWrite`` it returns starts the writing once the lock is released.
/// `close` ends the transport without a further `ended` event being needed by the engine (which
/// already knows).
protocol EngineTransport: AnyObject, Sendable {
    /// The transport's name as the `transport` query parameter spells it.
    var name: String { get }
    /// Starts connecting (call once, after the engine installed the transport).
    func start()
    /// Queues packets after those queued before (no I/O); returns what starts writing them, to
    /// run after the caller's lock is released — `nil` when a write already under way takes
    /// them too.
    ///
    /// With `afterPeerRead`, they go out once the peer has read everything written before them
    /// (a WebSocket ping answered; a POST answered), so they reach it in a later read. For the
    /// namespace DISCONNECT: socket.io's Node server drops events read together with it.
    func enqueue(_ packets: [EnginePacket], afterPeerRead: Bool) -> TransportWrite?
    /// Ends the transport, after writing what was already handed to `send`.
    func close()
    /// Returns once the transport's connection is closed (at once if it never opened).
    func waitUntilClosed() async
}

extension EngineTransport {
    /// Queues packets and starts writing them (for callers that hold no lock).
    func send(_ packets: [EnginePacket]) {
        enqueue(packets, afterPeerRead: false)?.start()
    }
}

/// Starts the writing of what a transport queued: the WebSocket's drain on its event loop, or
/// long-polling's POST loop. Run after the lock under which the packets were queued is released.
enum TransportWrite: Sendable {
    case webSocket(WebSocketClientChannel.Drain)
    case polling(PollingTransport)

    func start() {
        switch self {
        case .webSocket(let drain): drain.start()
        case .polling(let transport): transport.startPosting()
        }
    }
}
