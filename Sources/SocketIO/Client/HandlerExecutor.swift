public import Dispatch

/// Where a socket runs the app's handlers: a serial queue by default, or the main actor.
///
/// Handlers never run while the library holds a lock, and always in the order events arrived
/// (for a serial executor). The events of one read are handed over as one piece of work (one
/// thread hop per burst, not per event); no `Task` is created per event.
public struct HandlerExecutor: Sendable {
    private let enqueue: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// Whether work runs at once on the calling thread (``inline``): then it is never batched.
    let runsInline: Bool

    /// An executor from a function that runs work later, in order.
    ///
    /// The events of one burst (what the connection read at once) come as one piece of work:
    /// one hop per burst, not per event.
    public init(_ enqueue: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.init(enqueue, runsInline: false)
    }

    private init(_ enqueue: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void, runsInline: Bool) {
        self.enqueue = enqueue
        self.runsInline = runsInline
    }

    /// Runs handlers on `queue` (use a serial queue to keep events in order).
    public static func queue(_ queue: DispatchQueue) -> HandlerExecutor {
        HandlerExecutor { work in queue.async(execute: work) }
    }

    /// Runs handlers on the main actor, for UI code.
    public static var mainActor: HandlerExecutor {
        HandlerExecutor { work in
            Task { @MainActor in work() }
        }
    }

    /// Runs handlers at once, on the thread that delivered the event (the connection's network
    /// event loop), in order: no thread hop per event, so the least CPU and the fewest context
    /// switches (see the README's performance notes). The price: a handler holds up that
    /// connection's reading while it runs, so it must be quick and must never block or wait —
    /// count, forward to a queue or a continuation of your own, `emit` (which writes without a
    /// hop from there). Still never under one of the library's locks.
    public static var inline: HandlerExecutor {
        HandlerExecutor({ work in work() }, runsInline: true)
    }

    /// A new serial queue: the manager's default.
    public static func serial(label: String = "switchboard.socketio.handlers") -> HandlerExecutor {
        .queue(DispatchQueue(label: label))
    }

    func run(_ work: @escaping @Sendable () -> Void) {
        enqueue(work)
    }
}
