import SwitchboardCore
public import Logging
import NIOConcurrencyHelpers
public import SocketIOProtocol

/// Routes incoming messages to the subscribers that want them.
///
/// A message is JSON with an id and a body (``MessageFormat``, `msg_id`/`msg_body` by default).
/// Subscribers ask for messages by condition — a dotted key path and, optionally, the value it
/// must hold (``MessageCondition``) — or for everything. Routing goes through an index, so
/// 10,000 screens each following their own order cost about what one does.
///
/// ```swift
/// let center = MessageCenter(logger: logger)
/// center.subscribe(orderScreen, to: .value(at: "msg_body.extra.order_no", equals: "TAINIUBILE1234"))
/// let toast = center.subscribe(to: [.value(at: "msg_body.type", equals: "coupon")]) { message in
///     showToast(message.body)
///     return .intercept                              // nobody after us gets it
/// }
/// let feed = center.attach(to: connection, event: "message")   // or feed(from:) any sequence
/// ```
///
/// Rules:
/// - **Order**: the most recently added subscriber receives first. A subscriber returns
///   ``MessageDisposition``: `.continue`, `.processed` (later subscribers see
///   ``Message/processed``), or `.intercept` (later subscribers do not receive it).
/// - **Once**: a subscriber receives a message at most once, however many of its conditions match.
/// - **Duplicates**: a message whose id was dispatched within the ``DuplicateWindow`` is dropped
///   and counted.
/// - **Weak**: subscriber objects are held weakly and purged once gone; closure subscriptions
///   last as long as their ``MessageSubscription``; streams as long as they are consumed.
/// - **Where handlers run**: on the task that dispatches (a feed's own task, or your task when
///   you call ``dispatch(_:)``), one after another, never while the center holds its lock. An
///   actor-isolated subscriber is awaited on its actor. A subscriber unsubscribed while a
///   message is being delivered does not receive it if its turn had not come yet.
/// - **Bad input** becomes a ``MessageRejection``: counted, logged, never a crash.
///
/// Every method is safe to call from any task or thread, including from a handler.
public final class MessageCenter: Sendable {
    /// Where messages keep their id and body.
    public let format: MessageFormat
    let logger: Logger
    private let state: NIOLockedValueBox<State>
    private let elapsed: @Sendable () -> Duration
    /// Whether the duplicate window has a duration (otherwise the clock is never read).
    private let readsClock: Bool

    struct State: Sendable {
        var index = SubscriptionIndex()
        var duplicates: DuplicateFilter
        var statistics = MessageCenterStatistics()
    }

    /// A center with this configuration, logging rejected messages to `logger`.
    public init(
        configuration: Configuration = Configuration(),
        logger: Logger? = nil
    ) {
        let logger = logger ?? .disabled("switchboard.messages")
        format = configuration.format
        self.logger = logger
        state = NIOLockedValueBox(State(duplicates: DuplicateFilter(window: configuration.duplicateWindow)))
        elapsed = Self.elapsedTime(on: configuration.clock)
        readsClock = DuplicateFilter(window: configuration.duplicateWindow).needsTime
    }

    deinit {
        let streams = state.withLockedValue { $0.index.streamContinuations }
        for stream in streams { stream.finish() }
    }

    /// Counts of dispatched, duplicate and rejected messages so far.
    public var statistics: MessageCenterStatistics {
        state.withLockedValue { $0.statistics }
    }

    /// How many subscribers (objects still alive, closures, streams) are subscribed now.
    public var subscriberCount: Int {
        state.withLockedValue { state in
            state.index.sweep()
            return state.index.entries.count
        }
    }

    /// Entries held now, dead subscriber objects included (for tests of the sweep).
    var registeredCount: Int {
        state.withLockedValue { $0.index.entries.count }
    }

    // MARK: Dispatching

    /// Routes one message to its subscribers and returns what became of it.
    ///
    /// `json` is a message object; a string is taken as JSON text (servers that emit their
    /// messages serialized). Anything else that is not a message is rejected, counted and logged.
    @discardableResult
    public func dispatch(_ json: JSONValue) async -> DispatchOutcome {
        if case .string(let text) = json { return await dispatch(text: text) }
        return await accept(json)
    }

    /// Parses `text` as JSON and routes the message in it (see ``dispatch(_:)``).
    @discardableResult
    public func dispatch(text: String) async -> DispatchOutcome {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: text)
        } catch {
            return reject(.invalidJSON(error))
        }
        return await accept(json)
    }

    private func accept(_ json: JSONValue) async -> DispatchOutcome {
        let message: Message
        do {
            message = try Message(json: json, format: format)
        } catch {
            return reject(error)
        }
        return await dispatch(message)
    }

    private func dispatch(_ message: Message) async -> DispatchOutcome {
        let now = readsClock ? elapsed() : .zero
        let targets: [DeliveryTarget]? = state.withLockedValue { state in
            guard state.duplicates.admit(message.id, at: now) else {
                state.statistics.duplicates += 1
                return nil
            }
            state.statistics.dispatched += 1
            return state.index.route(message.json)
        }
        guard let targets else {
            logger.debug("duplicate message dropped", metadata: ["message.id": "\(message.id)"])
            return .duplicate(message.id)
        }
        return .delivered(await deliver(message, to: targets))
    }

    private func deliver(_ message: Message, to targets: [DeliveryTarget]) async -> DispatchOutcome.Delivery {
        var delivery = DispatchOutcome.Delivery(message: message, recipients: 0, intercepted: false)
        for (position, target) in targets.enumerated() {
            // The first target was resolved just now; later ones may have left meanwhile.
            if position > 0, !state.withLockedValue({ $0.index.contains(target.number) }) { continue }
            let disposition: MessageDisposition
            switch target.receiver {
            case .object(let subscriber):
                disposition = await subscriber.receive(delivery.message)
            case .closure(let handler):
                disposition = await handler(delivery.message)
            case .stream(let continuation):
                continuation.yield(delivery.message)
                disposition = .continue
            }
            delivery.recipients += 1
            switch disposition {
            case .continue:
                break
            case .processed:
                delivery.message.processed = true
            case .intercept:
                delivery.message.processed = true
                delivery.intercepted = true
                return delivery
            }
        }
        return delivery
    }

    private func reject(_ rejection: MessageRejection) -> DispatchOutcome {
        state.withLockedValue { $0.statistics.rejected += 1 }
        logger.warning("\(rejection)")
        return .rejected(rejection)
    }

    // MARK: Internal access for the subscribing extensions

    func withState<T>(_ body: (inout State) -> T) -> T {
        state.withLockedValue(body)
    }

    private static func elapsedTime<C: Clock<Duration>>(on clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}
