extension MessageCenter {
    /// How a ``MessageCenter`` reads messages and detects duplicates.
    public struct Configuration: Sendable {
        /// Where messages keep their id and body. Default `msg_id` and `msg_body`.
        public var format = MessageFormat()
        /// Which ids count as duplicates. Default: the last 1,000 ids, for 10 minutes.
        public var duplicateWindow = DuplicateWindow()
        /// The clock the duplicate window's duration is measured on; inject a test clock.
        public var clock: any Clock<Duration> = ContinuousClock()

        /// The defaults.
        public init() {}
    }
}

/// The window within which a message id seen before makes a message a duplicate.
///
/// An id is remembered until `count` newer ids were dispatched or `duration` passed, whichever
/// comes first; `nil` lifts that bound. With both `nil` nothing is remembered and no message is
/// a duplicate (``disabled``). Memory is bounded by `count`, so keep one unless the time bound
/// alone is enough for your message rate.
///
/// ```swift
/// configuration.duplicateWindow = DuplicateWindow(count: 10_000, duration: .seconds(60))
/// ```
public struct DuplicateWindow: Sendable, Hashable {
    /// How many of the most recent ids are remembered; `nil`: no count bound.
    public var count: Int?
    /// How long an id is remembered; `nil`: no time bound.
    public var duration: Duration?

    /// A window of at most `count` ids and at most `duration`.
    public init(count: Int? = 1_000, duration: Duration? = .seconds(600)) {
        self.count = count.map { max($0, 0) }
        self.duration = duration
    }

    /// No duplicate detection.
    public static let disabled = DuplicateWindow(count: nil, duration: nil)

    /// Whether any id is remembered at all.
    public var isEnabled: Bool {
        switch (count, duration) {
        case (nil, nil): false
        case (let count?, _): count > 0
        case (nil, let duration?): duration > .zero
        }
    }
}

/// What a ``MessageCenter`` has seen so far.
public struct MessageCenterStatistics: Sendable, Hashable {
    /// Messages accepted and routed to their subscribers (whether or not any matched).
    public var dispatched = 0
    /// Messages dropped because their id was dispatched within the duplicate window.
    public var duplicates = 0
    /// Inputs dropped because they were not messages (see ``MessageRejection``).
    public var rejected = 0

    /// All zero.
    public init() {}
}
