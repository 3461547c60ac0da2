public import Dispatch

/// Where a socket runs the app's handlers: a serial queue by default, or the main actor.
///
/// Handlers never run while the library holds a lock, and always in the order events arrived
/// (for a serial executor). No `Task` is created per event on the default executor.
public struct HandlerExecutor: Sendable {
    private let enqueue: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// An executor from a function that runs work later, in order.
    public init(_ enqueue: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.enqueue = enqueue
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

    /// A new serial queue: the manager's default.
    public static func serial(label: String = "switchboard.socketio.handlers") -> HandlerExecutor {
        .queue(DispatchQueue(label: label))
    }

    func run(_ work: @escaping @Sendable () -> Void) {
        enqueue(work)
    }
}
