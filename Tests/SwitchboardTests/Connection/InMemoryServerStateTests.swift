import SocketIOProtocol
import Testing
@testable import SwitchboardTesting

/// ``InMemoryServerState`` driven alone: links and waiters are names, so each event's hand-back
/// is checked without a driver or a continuation.
@Suite("In-memory server state")
struct InMemoryServerStateTests {
    typealias State = InMemoryServerState<String, String, String>

    /// A state with `links` open.
    private func open(_ links: UInt64...) -> State {
        var state = State()
        for link in links {
            #expect(state.openRequested(link: link, waiter: "open \(link)") == "open \(link)")
            #expect(state.openGoesOn(link: link, events: "link \(link)", isCancelled: false) == .opened)
        }
        return state
    }

    private func message(_ event: String, _ kind: InMemoryServer.Message.Kind = .send) -> InMemoryServer.Message {
        InMemoryServer.Message(kind: kind, event: event, payload: .string(event))
    }

    @Test func anOpenGoesOnAtOnceUnlessTheBehaviourHolds() {
        var state = State()
        #expect(state.openRequested(link: 1, waiter: "a") == "a")
        #expect(state.history.isEmpty)
        #expect(state.changeConnectBehavior(to: .hold).isEmpty)
        #expect(state.openRequested(link: 2, waiter: "b") == nil)
        #expect(state.openRequested(link: 3, waiter: "c") == nil)
        #expect(state.history == [.openHeld, .openHeld])
        #expect(state.changeConnectBehavior(to: .hold).isEmpty, "still holding: nobody goes on")
        #expect(Set(state.changeConnectBehavior(to: .refuse("later"))) == ["b", "c"])
        #expect(state.changeConnectBehavior(to: .accept).isEmpty, "each held open is let go once")
    }

    @Test func aCancelledHeldOpenIsHandedBackOnceAndNotLetGoLater() {
        var state = State()
        _ = state.changeConnectBehavior(to: .hold)
        #expect(state.openRequested(link: 1, waiter: "a") == nil)
        #expect(state.openCancelled(link: 1) == "a")
        #expect(state.openCancelled(link: 1) == nil)
        #expect(state.changeConnectBehavior(to: .accept).isEmpty)
    }

    @Test func anOpenThatGoesOnIsRefusedThenCancelledThenOpened() {
        var state = State()
        _ = state.changeConnectBehavior(to: .refuse("maintenance"))
        #expect(state.openGoesOn(link: 1, events: "one", isCancelled: true) == .refused("maintenance"))
        _ = state.changeConnectBehavior(to: .accept)
        #expect(state.openGoesOn(link: 1, events: "one", isCancelled: true) == .cancelled)
        #expect(state.openConnectionCount == 0)
        #expect(state.openGoesOn(link: 1, events: "one", isCancelled: false) == .opened)
        #expect(state.history == [.refused("maintenance"), .opened])
        #expect(state.openLinks == ["one"])
        #expect(state.acceptedOpenCount == 1)
    }

    @Test func aClosedLinkFailsOnlyItsOwnUnansweredRequests() {
        var state = open(1, 2)
        #expect(state.requestUnanswered(id: 10, link: 1, waiter: "r10") == nil)
        #expect(state.requestUnanswered(id: 11, link: 2, waiter: "r11") == nil)
        #expect(state.requestUnanswered(id: 12, link: 1, waiter: "r12") == nil)
        #expect(Set(state.closed(link: 1)) == ["r10", "r12"])
        #expect(state.closed(link: 1).isEmpty)
        #expect(state.history == [.opened, .opened, .closed], "a second close records nothing")
        #expect(state.openLinks == ["link 2"])
        #expect(state.requestCancelled(id: 11) == "r11")
    }

    @Test func aRequestOnALinkThatIsNotOpenFailsAtOnce() {
        var state = open(1)
        #expect(state.requestUnanswered(id: 10, link: 2, waiter: "r10") == "r10")
        #expect(state.requestCancelled(id: 10) == nil, "it never waited")
        #expect(state.requestUnanswered(id: 11, link: 1, waiter: "r11") == nil)
        #expect(state.requestCancelled(id: 11) == "r11")
        #expect(state.requestCancelled(id: 11) == nil)
        #expect(state.closed(link: 1).isEmpty, "a cancelled request is not failed again")
    }

    @Test func aMessageIsTakenOnlyFromAnOpenLinkAndAnsweredByItsHandler() {
        var state = open(1)
        guard case .notOpen = state.messageReceived(message("early"), link: 2) else {
            Issue.record("a link that is not open sends nothing")
            return
        }
        guard case .unhandled = state.messageReceived(message("greet", .request), link: 1) else {
            Issue.record("no handler yet")
            return
        }
        state.answer("greet") { _ in .string("hello") }
        guard case .handled = state.messageReceived(message("greet", .request), link: 1) else {
            Issue.record("the handler answers")
            return
        }
        #expect(state.receivedMessages == [message("greet", .request), message("greet", .request)])
        #expect(state.history == [.opened, .message(message("greet", .request)), .message(message("greet", .request))])
    }

    @Test func droppingAllHandsBackEveryLinkAndRequestOnce() {
        var state = open(1, 2)
        _ = state.requestUnanswered(id: 10, link: 1, waiter: "r10")
        let (links, requests) = state.droppedAll(reason: "gone")
        #expect(Set(links) == ["link 1", "link 2"])
        #expect(requests == ["r10"])
        #expect(state.openConnectionCount == 0)
        #expect(state.closed(link: 1).isEmpty)
        #expect(state.history == [.opened, .opened, .dropped("gone")], "a link dropped already does not close again")
        let again = state.droppedAll(reason: "again")
        #expect(again.links.isEmpty && again.requests.isEmpty)
    }

    @Test func aWatcherGetsTheHistoryThenWhatFollowsUntilItStops() async {
        var state = open(1)
        _ = state.messageReceived(message("a"), link: 1)
        let (activity, activityFeed) = AsyncStream<InMemoryServer.Activity>.makeStream()
        let (messages, messageFeed) = AsyncStream<InMemoryServer.Message>.makeStream()
        let activityID = state.watchActivity(activityFeed)
        let messagesID = state.watchMessages(messageFeed)
        #expect(activityID != messagesID)
        _ = state.messageReceived(message("b"), link: 1)
        _ = state.closed(link: 1)
        state.watcherStopped(activityID)
        _ = state.droppedAll(reason: "after")
        state.watcherStopped(messagesID)
        _ = state.openGoesOn(link: 2, events: "link 2", isCancelled: false)
        _ = state.messageReceived(message("c"), link: 2)
        #expect(state.receivedMessages == [message("a"), message("b"), message("c")])
        activityFeed.finish()
        messageFeed.finish()
        let seen = await collect(activity)
        #expect(seen == [.opened, .message(message("a")), .message(message("b")), .closed])
        #expect(await collect(messages) == [message("a"), message("b")])
    }
}

/// Every element of `stream`, once it ends.
private func collect<Element: Sendable>(_ stream: AsyncStream<Element>) async -> [Element] {
    var elements: [Element] = []
    for await element in stream { elements.append(element) }
    return elements
}
