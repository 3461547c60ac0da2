/// Everything an ``InMemoryServer`` knows (its connect behaviour, request handlers, open links,
/// held opens, unanswered requests, what happened and who follows it), changed only by the events
/// below. Each event hands back what the server does once its lock is released: the waiters to
/// resume, the links to call.
///
/// Generic over a link's event handler and the two kinds of waiter, so its tests need neither
/// continuations nor a driver. Only the watchers' streams are yielded to here, under the lock,
/// so that every follower sees what happened in the order it happened.
struct InMemoryServerState<Link: Sendable, OpenWaiter: Sendable, RequestWaiter: Sendable>: Sendable {
    /// How an open that went on (was not held, or was let go) ends.
    enum OpenOutcome: Equatable {
        /// The link is open.
        case opened
        /// The behaviour is `refuse`: the open fails with this reason.
        case refused(String)
        /// Its caller was cancelled meanwhile: nothing opened.
        case cancelled
    }

    /// What becomes of a message a client sent.
    enum Delivery {
        /// The link is not open: the message is not taken.
        case notOpen
        /// Taken; a request for it is never answered.
        case unhandled
        /// Taken; a request for it is answered by this handler.
        case handled(InMemoryServer.RequestHandler)
    }

    private(set) var connectBehavior = InMemoryServer.ConnectBehavior.accept
    private var handlers: [String: InMemoryServer.RequestHandler] = [:]
    private var links: [UInt64: Link] = [:]
    private var held: [UInt64: OpenWaiter] = [:]
    private var unanswered: [UInt64: (link: UInt64, waiter: RequestWaiter)] = [:]
    /// Everything that happened, in order.
    private(set) var history: [InMemoryServer.Activity] = []
    private var activityWatchers = ReplayingWatchers<InMemoryServer.Activity>()
    private var messageWatchers = ReplayingWatchers<InMemoryServer.Message>()
    /// How many opens succeeded so far.
    private(set) var acceptedOpenCount = 0
    private var lastID: UInt64 = 0

    init() {}

    /// How many links are open now.
    var openConnectionCount: Int { links.count }

    /// The event handlers of the open links (a push goes to each).
    var openLinks: [Link] { Array(links.values) }

    /// Every message received so far, in order.
    var receivedMessages: [InMemoryServer.Message] {
        history.compactMap { if case .message(let message) = $0 { message } else { nil } }
    }

    /// A new identifier, never handed out before (for links, unanswered requests and watchers).
    mutating func makeID() -> UInt64 {
        lastID += 1
        return lastID
    }

    /// Requests for `event` are answered by `handler` from now on.
    mutating func answer(_ event: String, with handler: @escaping InMemoryServer.RequestHandler) {
        handlers[event] = handler
    }

    /// The connect behaviour changed: the held opens to let go on (every one, unless the new
    /// behaviour holds too).
    mutating func changeConnectBehavior(to behavior: InMemoryServer.ConnectBehavior) -> [OpenWaiter] {
        connectBehavior = behavior
        guard behavior != .hold else { return [] }
        defer { held = [:] }
        return Array(held.values)
    }

    /// `link` asks to open: hands `waiter` back to be resumed now, or holds it (`nil`) while the
    /// behaviour is `hold`.
    mutating func openRequested(link: UInt64, waiter: OpenWaiter) -> OpenWaiter? {
        guard connectBehavior == .hold else { return waiter }
        held[link] = waiter
        record(.openHeld)
        return nil
    }

    /// The caller of `link`'s open was cancelled: its held waiter (if it was still held), to be
    /// failed.
    mutating func openCancelled(link: UInt64) -> OpenWaiter? {
        held.removeValue(forKey: link)
    }

    /// `link`'s open goes on (it was not held, or was let go): refused while the behaviour is
    /// `refuse`, else opened with `events` unless its caller `isCancelled`.
    mutating func openGoesOn(link: UInt64, events: Link, isCancelled: Bool) -> OpenOutcome {
        if case .refuse(let reason) = connectBehavior {
            record(.refused(reason))
            return .refused(reason)
        }
        guard !isCancelled else { return .cancelled }
        links[link] = events
        acceptedOpenCount += 1
        record(.opened)
        return .opened
    }

    /// `link` closed its transport: its unanswered requests, to be failed.
    mutating func closed(link: UInt64) -> [RequestWaiter] {
        if links.removeValue(forKey: link) != nil { record(.closed) }
        let mine = unanswered.filter { $0.value.link == link }
        for id in mine.keys { unanswered.removeValue(forKey: id) }
        return mine.values.map(\.waiter)
    }

    /// `link` sent `message`: recorded when the link is open, with what answers it.
    mutating func messageReceived(_ message: InMemoryServer.Message, link: UInt64) -> Delivery {
        guard links[link] != nil else { return .notOpen }
        record(.message(message))
        return handlers[message.event].map { .handled($0) } ?? .unhandled
    }

    /// A request `id` of `link` has no handler and waits: hands `waiter` back, to be failed now,
    /// when the link is not open.
    mutating func requestUnanswered(id: UInt64, link: UInt64, waiter: RequestWaiter) -> RequestWaiter? {
        guard links[link] != nil else { return waiter }
        unanswered[id] = (link, waiter)
        return nil
    }

    /// The caller of request `id` was cancelled: its waiter (if it still waited), to be failed.
    mutating func requestCancelled(id: UInt64) -> RequestWaiter? {
        unanswered.removeValue(forKey: id)?.waiter
    }

    /// The server drops every link: the links, to hear that they closed, and every unanswered
    /// request, to be failed.
    mutating func droppedAll(reason: String) -> (links: [Link], requests: [RequestWaiter]) {
        record(.dropped(reason))
        defer { links = [:]; unanswered = [:] }
        return (Array(links.values), unanswered.values.map(\.waiter))
    }

    /// A stream follows the activity: it gets all of it so far, then what happens next.
    mutating func watchActivity(_ continuation: AsyncStream<InMemoryServer.Activity>.Continuation) -> UInt64 {
        let id = makeID()
        activityWatchers.add(id, continuation, replaying: history)
        return id
    }

    /// A stream follows the messages: it gets all of them so far, then each new one.
    mutating func watchMessages(_ continuation: AsyncStream<InMemoryServer.Message>.Continuation) -> UInt64 {
        let id = makeID()
        messageWatchers.add(id, continuation, replaying: receivedMessages)
        return id
    }

    /// The consumer of watcher `id`'s stream stopped.
    mutating func watcherStopped(_ id: UInt64) {
        activityWatchers.remove(id)
        messageWatchers.remove(id)
    }

    private mutating func record(_ event: InMemoryServer.Activity) {
        history.append(event)
        activityWatchers.yield(event)
        if case .message(let message) = event { messageWatchers.yield(message) }
    }
}
