public import Observation

/// A connection's status as a SwiftUI view wants it: an `@Observable` model on the main actor,
/// updated in the order things happened, that follows a socket (`LiveStatus(following: socket)`,
/// `SocketIO`) or a platform connection (`LiveStatus(following: connection)`, `Switchboard`) and
/// lets go of it: it holds neither, and stops following when they are released or closed.
///
/// ```swift
/// @State private var status = LiveStatus(following: socket)
/// var body: some View { Text("\(status.state)") }
/// ```
@MainActor
@Observable
public final class LiveStatus<State: Sendable & Equatable> {
    /// The state now (`SocketStatus`, `ConnectionState`).
    public private(set) var state: State
    /// Whether the last connect got the previous session back (connection state recovery);
    /// `nil` until known.
    public private(set) var recovered: Bool?
    /// The last error: a refused or failed connect, a lost connection; cleared on connect.
    public private(set) var lastError: String?
    /// Reconnection attempts since the last successful connect.
    public private(set) var reconnectAttempts = 0
    /// The transport carrying the connection now (`polling`, `websocket`, `webSocket`,
    /// `socketIO`), when one does and the connection says.
    public private(set) var transport: String?
    /// Whether the model still follows its connection (`false` once it was released or closed).
    public private(set) var isFollowing = true

    /// One change, in the order it happened.
    package enum Update: Sendable {
        case state(State)
        /// Connected (again): whether the session was recovered; the error is cleared and the
        /// attempts count from zero.
        case connected(recovered: Bool?)
        case error(String?)
        case attempt(Int)
        case transport(String?)
    }

    /// Set once in `init`, cancelled in `deinit` (a task has no isolation to protect).
    @ObservationIgnored nonisolated(unsafe) private var feed: Task<Void, Never>?

    /// A model starting at what the connection says now, following it with `follow`: a task on
    /// the main actor that yields the connection's updates and returns when the connection is
    /// gone (the model then stops following). The task is cancelled when the model is released.
    package init(
        state: State, recovered: Bool?, lastError: String?, transport: String?,
        following follow: @escaping @MainActor @Sendable (AsyncStream<Update>.Continuation) async -> Void
    ) {
        self.state = state
        self.recovered = recovered
        self.lastError = lastError
        self.transport = transport
        let (updates, continuation) = AsyncStream<Update>.makeStream()
        let follower = Task {
            await follow(continuation)
            continuation.finish()
        }
        continuation.onTermination = { _ in follower.cancel() }
        feed = Task { @MainActor [weak self] in
            for await update in updates {
                guard let self else { return }
                self.apply(update)
            }
            self?.isFollowing = false
        }
    }

    deinit {
        feed?.cancel()
    }

    private func apply(_ update: Update) {
        switch update {
        case .state(let state): if self.state != state { self.state = state }
        case .connected(let recovered):
            if self.recovered != recovered { self.recovered = recovered }
            apply(.error(nil))
            apply(.attempt(0))
        case .error(let error): if lastError != error { lastError = error }
        case .attempt(let attempt): if reconnectAttempts != attempt { reconnectAttempts = attempt }
        case .transport(let transport): if self.transport != transport { self.transport = transport }
        }
    }
}
