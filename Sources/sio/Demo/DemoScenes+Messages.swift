import NIOConcurrencyHelpers
import SharingExample
import SocketIO
import SocketIOServer
import Switchboard
import SwitchboardDemo

extension DemoScenes {
    /// The message center fed by the `/chat` socket's `message` events: routing by key path,
    /// newest subscriber first, the processed mark, interception, duplicates, a rejected input,
    /// and a shared playlist rendered for each destination by the sharing visitor.
    func messageCenter(_ chat: Socket) async throws {
        story.chapter("Message center and typed sharing")
        let center = MessageCenter()
        let received = DemoInbox()
        // Subscribed first, so it receives last: it only tells the demo the script is over.
        let end = center.messages(matching: [.value(at: "msg_body.type", equals: "end")])
        let audit = DemoSubscriber(name: "audit", inbox: received, disposition: .continue)
        let orders = DemoSubscriber(name: "order screen", inbox: received, disposition: .processed)
        center.subscribe(audit)
        center.subscribe(orders, to: .value(at: "msg_body.extra.order_no", equals: "TAINIUBILE1234"))
        let shares = center.subscribe(to: [.value(at: "msg_body.type", equals: "share")]) { message in
            received.record("share renderer", message)
            return .intercept
        }
        story.step("subscribed, newest first: share renderer (msg_body.type == \"share\", intercepts), "
            + "order screen (msg_body.extra.order_no == \"TAINIUBILE1234\", marks processed), audit log (everything)")

        let feed = center.feed(from: chat.events(named: "message").map { $0.items.first ?? .null })
        let pushed = try await within("the push-messages ack") { try await chat.emitWithAck("push-messages") }
        _ = try await within("the last pushed message") { await end.firstElement() }
        feed.cancel()
        let script = DemoApplication.messageScript
        guard pushed.first?.intValue == script.count else { throw DemoFailure(description: "the server pushed \(pushed)") }
        story.step("the server pushed \(script.count) `message` events; the center routed them by index, one feed task, in order")

        let orderIDs = received.ids(of: "order screen")
        guard orderIDs == ["00544", "00546", "00547"], center.statistics.duplicates == 1 else {
            throw DemoFailure(description: "the order screen received \(orderIDs), \(center.statistics.duplicates) duplicates")
        }
        story.step("order screen received \(orderIDs.map(\.plain).joined(separator: ", ")) — once each: "
            + "00544 came twice, the second was dropped as a duplicate")

        let auditIDs = received.ids(of: "audit")
        let marked = received.processedIDs(of: "audit")
        guard auditIDs == ["00544", "00545", "00546", "00547", "00548"], marked == ["00544", "00546", "00547"] else {
            throw DemoFailure(description: "the audit log saw \(auditIDs), processed \(marked)")
        }
        story.step("audit log saw \(auditIDs.count) messages, \(marked.count) marked processed by the order screen; "
            + "the share never reached it (intercepted)")

        guard center.statistics.rejected == 1 else {
            throw DemoFailure(description: "expected one rejected input, got \(center.statistics.rejected)")
        }
        story.step("\"this is not a message\" was rejected and counted; the feed went on")

        try renderShare(received.messages(of: "share renderer"))
        shares.cancel()
        withExtendedLifetime((audit, orders)) {}
    }

    private func renderShare(_ messages: [Message]) throws {
        guard messages.count == 1, let message = messages.first else {
            throw DemoFailure(description: "the share renderer received \(messages.count) messages")
        }
        let item = try SharedItem(messageBody: message.body)
        guard case .playlist(let playlist) = item else { throw DemoFailure(description: "expected a playlist, got \(item.kind)") }
        story.step("\(message.body["from"]?.stringValue ?? "someone") shared the playlist \"\(playlist.title)\" "
            + "(\(playlist.songs.count) songs); the visitor renders it for each destination:")
        let facebook = item.accept(FacebookSharePolicy())
        let line = item.accept(LineSharePolicy())
        let instagram = item.accept(InstagramSharePolicy())
        guard facebook.image != nil, !line.text.isEmpty, instagram.images.count == playlist.songs.count else {
            throw DemoFailure(description: "a destination's payload is incomplete")
        }
        story.detail("\(FacebookPost.destination): \(facebook.summary)")
        story.detail("\(LineMessage.destination): \(line.summary)")
        story.detail("\(InstagramPost.destination): \(instagram.summary)")
    }
}

extension MessageID {
    /// The id without JSON quotes, for the story.
    var plain: String { jsonValue.stringValue ?? description }
}

/// What the demo's subscribers received, in order.
final class DemoInbox: Sendable {
    private let entries = NIOLockedValueBox<[(subscriber: String, message: Message)]>([])

    func record(_ subscriber: String, _ message: Message) {
        entries.withLockedValue { $0.append((subscriber, message)) }
    }

    func messages(of subscriber: String) -> [Message] {
        entries.withLockedValue { $0.filter { $0.subscriber == subscriber }.map(\.message) }
    }

    func ids(of subscriber: String) -> [MessageID] {
        messages(of: subscriber).map(\.id)
    }

    func processedIDs(of subscriber: String) -> [MessageID] {
        messages(of: subscriber).filter(\.processed).map(\.id)
    }
}

/// A demo screen: records what it receives and answers with a fixed disposition.
final class DemoSubscriber: MessageSubscriber {
    let name: String
    let inbox: DemoInbox
    let disposition: MessageDisposition

    init(name: String, inbox: DemoInbox, disposition: MessageDisposition) {
        self.name = name
        self.inbox = inbox
        self.disposition = disposition
    }

    func receive(_ message: Message) async -> MessageDisposition {
        inbox.record(name, message)
        return disposition
    }
}
