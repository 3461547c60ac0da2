import NIOConcurrencyHelpers
import SocketIOServer
import SocketIOProtocol

extension DemoApplication {
    /// Serves the demo on the plain WebSocket endpoint (`/ws`) in the JSON `Envelope`, the
    /// same events as over Socket.IO, with one value as `data`:
    ///
    /// | event | what the server does |
    /// |---|---|
    /// | `echo` x | emits `echo` x to the sender; as a request, replies `[x]` |
    /// | `ack` x | as a request, replies `[x]` |
    /// | `broadcast` x | emits `broadcast` x to every `/ws` client, sender included; replies `[count]` |
    /// | `later` [ms, x] | emits `later` x after ms milliseconds; replies `[]` |
    /// | `burst` n | emits `burst-item` 0…n-1, then `burst-done` n; replies `[n]` |
    /// | `headers` | replies `[{…}]`: the connection's HTTP request headers |
    /// | `kick` | closes the connection (the close is the answer: a request gets no reply) |
    ///
    /// Unlike Socket.IO's `broadcast`, the sender receives its own: a plain WebSocket has no
    /// namespace to share, and a lone console user sees that it worked.
    static func installPlainWebSocket(on server: SocketIOServer, channels: ReliableChannels) {
        let sockets = NIOLockedValueBox<[String: EnvelopeSocket]>([:])
        server.onPlainWebSocket { connection in
            // `/ws?channel=ID`: a failover channel's WebSocket transport.
            if connection.query["channel"] != nil {
                try await channels.serve(connection)
                return
            }
            let socket = EnvelopeSocket(connection)
            installEnvelopeEvents(on: socket, everyone: sockets)
            sockets.withLockedValue { $0[socket.id] = socket }
            defer { sockets.withLockedValue { _ = $0.removeValue(forKey: socket.id) } }
            try await socket.run()
        }
    }

    static func installEnvelopeEvents(on socket: EnvelopeSocket, everyone: NIOLockedValueBox<[String: EnvelopeSocket]>) {
        socket.onRequest("echo") { data in
            socket.emit("echo", data)
            return [data]
        }
        socket.onRequest("ack") { data in [data] }
        socket.onRequest("broadcast") { data in
            let count = everyone.withLockedValue { Array($0.values) }.filter { $0.emit("broadcast", data) }.count
            return [.number(Double(count))]
        }
        socket.on("later") { data in
            let milliseconds = max(data[0]?.intValue ?? data.intValue ?? 0, 0)
            let value = data[1] ?? .null
            Task {
                try? await Task.sleep(for: .milliseconds(milliseconds))
                socket.emit("later", value)
            }
        }
        socket.onRequest("burst") { data in
            let count = min(max(data.intValue ?? 0, 0), 100_000)
            for index in 0..<count { socket.emit("burst-item", .number(Double(index))) }
            socket.emit("burst-done", .number(Double(count)))
            return [.number(Double(count))]
        }
        socket.onRequest("headers") { _ in
            [.object(JSONObject(socket.connection.headers.map { ($0.key, JSONValue.string($0.value)) }))]
        }
        socket.on("kick") { _ in
            socket.close()
        }
    }
}

extension DemoApplication {
    /// Failover channels (``ReliableChannels``): the `/channel` namespace over Socket.IO and
    /// `/ws?channel=ID` over plain WebSocket. `echo` x sends `echo` x back on the channel; a
    /// request for `echo` or `ack` gets `[x]`.
    static func installChannels(on server: SocketIOServer) -> ReliableChannels {
        let channels = ReliableChannels(server: server)
        channels.onChannel { channel in
            channel.onRequest("echo") { data in
                // A client far behind holds the echo up (its acknowledgements make room), never
                // loses it; one that stops reading for 30 s gets an error reply instead.
                try await channel.send("echo", data, waitingUpTo: .seconds(30))
                return [data]
            }
            channel.onRequest("ack") { data in [data] }
        }
        return channels
    }
}
