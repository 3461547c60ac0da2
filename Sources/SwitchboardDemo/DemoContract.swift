/// One event of the demo server's contract: what a client sends, what the server does, and what
/// it acknowledges when the client asks for an ack.
public struct DemoEvent: Sendable, Hashable {
    /// The event name and its arguments, as a client emits it (`later ms, …args`).
    public let usage: String
    /// What the server does.
    public let effect: String
    /// The ack's items, when the client asked for one.
    public let ack: String
}

extension DemoApplication {
    /// The namespaces and endpoints of the demo server, one line each.
    public static let namespaces: [(name: String, description: String)] = [
        ("/", "the events below; no auth"),
        ("/chat", #"the events below; auth {"token":"secret"}, otherwise connect_error "unauthorized" with data {"reason":"bad token"}"#),
        ("/ticker", "emits tick 1, 2, 3, … every 20 ms to everyone (recovery on: a reconnecting listener misses none)"),
        ("/ws", "plain WebSocket: the same events in the JSON envelope, a request getting the ack as its reply (there, broadcast reaches the sender too and kick closes without a reply)"),
        ("/channel", "failover channels (this namespace over Socket.IO, /ws?channel=ID over plain WebSocket; numbered envelopes, resume): echo x sends echo x back, a request for echo or ack gets [x]"),
    ]

    /// The contract of `/` and `/chat`, the one description that the README's table, `sio serve
    /// --help`, the tests and the python peers follow (a test compares the README with it).
    /// Every event acknowledges when the client asks for an ack.
    public static let events: [DemoEvent] = [
        DemoEvent(usage: "echo …args", effect: "emits echo with the args to the sender", ack: "the args"),
        DemoEvent(usage: "ack …args", effect: "nothing else", ack: "the args"),
        DemoEvent(usage: "binary …args", effect: "like echo, attachments included", ack: "the args"),
        DemoEvent(usage: "join room", effect: "joins the room", ack: "[room]"),
        DemoEvent(usage: "leave room", effect: "leaves the room", ack: "[room]"),
        DemoEvent(usage: "room-message room, …args", effect: "emits room-message (room, …args) to the room, the sender too if in it (in a cluster: on every server)", ack: "[count reached on this server]"),
        DemoEvent(usage: "broadcast …args", effect: "emits broadcast with the args to the namespace but the sender (in a cluster: on every server)", ack: "[count reached on this server]"),
        DemoEvent(usage: "server-ack …args", effect: #"asks the sender for an ack of server-ack (5 s), then emits server-ack-result with its items, or {"error":"timeout"}"#, ack: "[] at once"),
        DemoEvent(usage: "later ms, …args", effect: "emits later with the args after ms milliseconds", ack: "[] at once"),
        DemoEvent(usage: "burst n", effect: "emits burst-item 0…n-1, then burst-done n (n ≤ 100,000)", ack: "[n], after burst-done"),
        DemoEvent(usage: "headers", effect: "nothing else", ack: "[{…}]: the connection's HTTP request headers"),
        DemoEvent(usage: "push-messages", effect: "emits the message center script (order updates, a duplicate, a non-message, a share, an end) as message events", ack: "[count]"),
        DemoEvent(usage: "kick", effect: "disconnects the sender from the namespace (io server disconnect)", ack: "[], before the disconnect"),
        DemoEvent(usage: "kick-close", effect: "like kick, and closes the sender's whole connection", ack: "[], before the disconnect (over polling the close can overtake it)"),
    ] + clusterEvents

    /// The contract as the README shows it: the namespaces, then one table row per event.
    public static var contractMarkdown: String {
        var lines = namespaces.map { "- `\($0.name)`: \($0.description)" }
        lines += ["", "| event | what the server does | ack, when asked |", "|---|---|---|"]
        lines += events.map { "| `\($0.usage)` | \($0.effect) | \($0.ack) |" }
        return lines.joined(separator: "\n")
    }

    /// The contract as `sio serve --help` shows it.
    public static var contractText: String {
        var lines = namespaces.map { "\($0.name): \($0.description)" }
        lines.append("")
        lines.append("Events on / and /chat (each acks when asked):")
        lines += events.map { "  \($0.usage) — \($0.effect); ack: \($0.ack)" }
        return lines.joined(separator: "\n")
    }
}
