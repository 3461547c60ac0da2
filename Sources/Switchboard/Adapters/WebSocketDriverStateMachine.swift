/// The rules of one ``WebSocketDriver``, as a value type: no I/O, no clock, no locks.
///
/// `idle → opening → open → idle`, and again: every `open` starts a new *generation*, and
/// events from an older connection (a late close, a late message) are ignored by generation.
/// Requests get ids unique over the driver's whole life, so a late reply never answers a newer
/// request. The owner keeps the continuations; the actions name which to resume or fail.
struct WebSocketDriverStateMachine: Sendable {
    enum State: Sendable, Equatable {
        /// Never opened, or closed: `open` is allowed.
        case idle
        /// Connecting connection `generation`.
        case opening(generation: Int)
        /// Connection `generation` carries messages.
        case open(generation: Int)
    }

    private(set) var state: State = .idle
    private var generation = 0
    private var nextRequestID = 0
    /// Requests sent on the open connection and not answered yet.
    private(set) var pendingRequests: Set<Int> = []

    /// Whether the connection of `generation` is the current one (opening or open).
    func isCurrent(_ generation: Int) -> Bool {
        switch state {
        case .idle: false
        case .opening(let current), .open(let current): current == generation
        }
    }

    // MARK: - Opening and closing

    enum OpenAction: Sendable, Equatable {
        /// Make connection `generation` and wait for it.
        case connect(generation: Int)
        /// Refuse: the driver is already open or opening.
        case refuse
    }

    mutating func open() -> OpenAction {
        switch state {
        case .idle:
            generation += 1
            state = .opening(generation: generation)
            return .connect(generation: generation)
        case .opening, .open:
            return .refuse
        }
    }

    enum OpenedAction: Sendable, Equatable {
        /// `open` returns.
        case resumeOpen
        /// A stale connection: nothing to do.
        case ignore
    }

    mutating func channelOpened(generation: Int) -> OpenedAction {
        guard case .opening(generation) = state else { return .ignore }
        state = .open(generation: generation)
        return .resumeOpen
    }

    enum EndAction: Sendable, Equatable {
        /// `open` fails.
        case failOpen
        /// The open connection went away by itself: fail these requests, report the close once.
        case reportClosed(failRequests: [Int])
        /// A stale connection, or one the app already closed: nothing to do.
        case ignore
    }

    /// Connection `generation` ended (also used when it broke the protocol: the owner closes it).
    mutating func channelEnded(generation: Int) -> EndAction {
        switch state {
        case .opening(generation):
            state = .idle
            return .failOpen
        case .open(generation):
            state = .idle
            return .reportClosed(failRequests: takePendingRequests())
        case .idle, .opening, .open:
            return .ignore
        }
    }

    enum CloseAction: Sendable, Equatable {
        /// Nothing is open.
        case none
        /// Stop connecting: close the connection, `open` fails.
        case cancelOpen
        /// Close the connection and fail these requests; report no close event.
        case close(failRequests: [Int])
    }

    /// The app closes the driver (or cancels `open`).
    mutating func close() -> CloseAction {
        switch state {
        case .idle:
            return .none
        case .opening:
            state = .idle
            return .cancelOpen
        case .open:
            state = .idle
            return .close(failRequests: takePendingRequests())
        }
    }

    /// The task waiting in `open` was cancelled: `true` when the driver was still opening (it is
    /// idle now; the owner closes the connection), `false` when the opening already ended.
    mutating func cancelOpening(generation: Int) -> Bool {
        guard case .opening(generation) = state else { return false }
        state = .idle
        return true
    }

    private mutating func takePendingRequests() -> [Int] {
        defer { pendingRequests = [] }
        return pendingRequests.sorted()
    }

    // MARK: - Messages

    /// Whether messages can be sent now.
    var canSend: Bool {
        if case .open = state { return true }
        return false
    }

    enum RequestAction: Sendable, Equatable {
        /// Send the request with this id and wait for its reply.
        case send(id: Int)
        /// Not open: the request fails at once.
        case refuse
    }

    mutating func request() -> RequestAction {
        guard canSend else { return .refuse }
        defer { nextRequestID += 1 }
        pendingRequests.insert(nextRequestID)
        return .send(id: nextRequestID)
    }

    /// A reply, an error reply, a timeout or a cancellation settles request `id`: `true` when it
    /// was still waiting (the owner resumes it), `false` when it was settled already.
    mutating func settleRequest(id: Int) -> Bool {
        pendingRequests.remove(id) != nil
    }

    /// Whether a message from connection `generation` is to be handled.
    func accepts(messageFrom generation: Int) -> Bool {
        state == .open(generation: generation)
    }
}
