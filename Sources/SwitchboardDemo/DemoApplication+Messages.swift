import SocketIOServer
public import SocketIOProtocol

extension DemoApplication {
    /// What the server pushes, in order, as `message` events when a client emits `push-messages`
    /// (it then acks with their count): order status changes for two orders, one id sent twice,
    /// one input that is not a message, a playlist shared by a friend, and a last message of type
    /// `end`. The message center demo of `sio demo` routes them.
    public static let messageScript: [JSONValue] = [
        orderStatus("00544", order: "TAINIUBILE1234", title: "Order placed"),
        orderStatus("00545", order: "TAINIUBILE9876", title: "Order placed"),
        orderStatus("00546", order: "TAINIUBILE1234", title: "Order shipped"),
        orderStatus("00544", order: "TAINIUBILE1234", title: "Order placed"),
        "this is not a message",
        ["msg_id": "share-1", "msg_body": ["type": "share", "from": "ada", "share": sharedPlaylist]],
        orderStatus("00547", order: "TAINIUBILE1234", title: "Order delivered"),
        ["msg_id": "00548", "msg_body": ["type": "end"]],
    ]

    static func installMessages(on socket: ServerSocket) {
        socket.on("push-messages") { event in
            for message in messageScript { socket.emit("message", message) }
            event.ack?.respond([.number(Double(messageScript.count))])
        }
    }

    /// An order status change in the message format of SPEC.md.
    static func orderStatus(_ id: String, order: String, title: String) -> JSONValue {
        [
            "msg_id": .string(id),
            "msg_body": [
                "timestamp": 172831819, "type": "order_status_change", "title": .string(title),
                "sub_title": "", "content": "", "fmt_date": "07-22 18:22",
                "extra": ["order_no": .string(order)],
            ],
        ]
    }

    /// A playlist as the sharing example's `SharedItem` reads it: `{"kind":…,"item":{…}}`.
    static let sharedPlaylist: JSONValue = [
        "kind": "playlist",
        "item": [
            "id": "p1", "title": "Road trip", "curator": "ada", "link": "https://tunes.example/playlists/p1",
            "songs": [
                song("s1", "Blue in Green", "Miles Davis", cover: "kind-of-blue"),
                song("s2", "Naima", "John Coltrane", cover: "giant-steps"),
                song("s3", "Take Five", "Dave Brubeck", cover: "time-out"),
            ],
        ],
    ]

    private static func song(_ id: String, _ title: String, _ artist: String, cover: String) -> JSONValue {
        [
            "id": .string(id), "title": .string(title), "artist": .string(artist),
            "cover": .string("https://cdn.example/covers/\(cover).jpg"),
            "link": .string("https://tunes.example/songs/\(id)"),
        ]
    }
}
