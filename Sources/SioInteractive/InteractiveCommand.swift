package import SocketIOProtocol

/// A line typed in `sio connect`, parsed by ``CommandParser``.
package enum InteractiveCommand: Sendable, Hashable {
    /// `emit EVENT [JSON …]`: send an event, each JSON value one argument.
    case emit(event: String, items: [JSONValue])
    /// `ack EVENT [JSON …]`: send an event and wait for the acknowledgement.
    case ack(event: String, items: [JSONValue])
    /// `status`: the connection, socket id, transport, Engine.IO version, recovered.
    case status
    /// `connect`: join the namespace again after a disconnect.
    case connect
    /// `disconnect`: leave the namespace (the session stays).
    case disconnect
    /// `help`: the commands and keys.
    case help
    /// `quit` or `exit`.
    case quit

    /// The command words, for help and for the unknown-command error.
    package static let words = ["emit", "ack", "status", "connect", "disconnect", "help", "quit", "exit"]

    /// The help text, one line per command, then the keys.
    package static func help(ackTimeout: String) -> [String] {
        [
            "emit EVENT [JSON …]   send an event; each JSON value is one argument",
            "ack EVENT [JSON …]    send an event, print the ack (waits up to \(ackTimeout); ctrl-C stops)",
            "status                connection, socket id, transport, Engine.IO version, recovered",
            "connect, disconnect   join or leave the namespace again",
            "help                  this list",
            "quit, exit            leave (ctrl-D on an empty line too)",
            #"example: emit chat "hi there" {"to": "all", "n": [1, 2]}"#,
            "keys: ←/→ home/end ctrl-A/E · ctrl-U/K/W delete · ↑/↓ history · ctrl-C drops the line",
        ]
    }
}
