import SocketIOProtocol
import SwitchboardCore

/// The actions the owner performs after a transition.
extension FailoverChannelStateMachine {
    /// Envelopes to write on a link (``FailoverLinkOutbox/Batch``).
    typealias Write = Connected.Batch

    /// The effects of a link report, a timer or a path change, performed in this order.
    struct Action: Sendable {
        /// Hand this `event` or `request` envelope to the connection above (`nil`: nobody listens).
        var deliver: (envelope: Envelope, listener: Listener?)?
        /// Answer the app's request `id`.
        var settle: (id: Int, result: Result<Response, ConnectionError>)?
        var write: Write?
        var note: FailoverChannel.Note?
        var publish: FailoverChannel.Publication?
        /// Reconnect in the background on `target` (closing `closing` first).
        var relink: (closing: Link?, target: FailoverTransport)?
        /// Start the acknowledgement timer (``FailoverChannel/Timer/ackDelay``).
        var startAckTimer = false
        /// Answer the connect attempt waiting for `resumed`.
        var resume: (waiter: Waiter, result: Result<Void, any Error>)?
        /// Wake the sends waiting for room with these tokens: each holds a slot now.
        var admit: [Int] = []
    }

    /// The effects of a send: the request's id (register it before writing), what to write.
    struct SendAction: Sendable {
        var requestID: Int?
        var write: Write?
    }

    /// What a close ends: the link, the attempt waiting for `resumed`, the background tasks.
    struct CloseAction: Sendable {
        var link: Link?
        var waiter: Waiter?
        var tasks: [Task<Void, Never>]
    }

    /// A link opened for an attempt: write `resume` on it, or refuse (the channel closed meanwhile).
    enum ResumeStart: Sendable {
        case send(Envelope)
        case refuse(Waiter)
    }

    /// After a failed connect attempt: where the next one goes, or stop.
    struct RetryAction: Sendable {
        var next: FailoverTransport
        /// No more attempts (cancelled, or the last one failed).
        var stop = false
        /// The channel gave up: tell the connection above it is lost (this listener, if any).
        var reportLoss: (listener: Listener?, reason: String)?
        var publish: FailoverChannel.Publication?
    }

    /// A publication of `events` to the observers now (`nil` for none).
    func publishing(_ events: FailoverEvent...) -> FailoverChannel.Publication? {
        events.isEmpty ? nil : FailoverChannel.Publication(events: events, observers: observers)
    }
}
