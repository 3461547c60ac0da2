import Foundation
import SocketIO

/// The demo's scenes, each asserting what it shows: a step that does not happen fails the demo.
struct DemoScenes: Sendable {
    let story: DemoStory
    let url: URL
    /// The embedded server, which the reconnection scene restarts.
    let host: DemoServerHost

    func play() async throws {
        let (manager, chat) = try await connectWithAuth()
        try await eventsAndAcks(chat)
        try await binary(chat)
        try await rooms(chat)
        try await messageCenter(chat)
        try await forcedDisconnect(manager, chat)
        await manager.close()
        try await reconnection()
    }

    func makeManager() throws -> Manager {
        var configuration = Manager.Configuration()
        configuration.connectTimeout = .seconds(demoStepSeconds)
        configuration.defaultAckTimeout = .seconds(demoStepSeconds)
        return try Manager(url: url, configuration: configuration)
    }

    func connectWithAuth() async throws -> (Manager, Socket) {
        story.chapter("Connect with auth")
        let refusedManager = try makeManager()
        let refused = refusedManager.socket(namespace: "/chat", auth: .static(["token": "wrong"]))
        do {
            try await within("the refusal") { try await refused.connect() }
            throw DemoFailure(description: "/chat accepted a wrong token")
        } catch SocketIOError.connectError(let message, let data) {
            story.step("/chat with a wrong token is refused: connect_error \"\(message)\" \(data?.jsonString ?? "")")
        }
        await refusedManager.close()

        let manager = try makeManager()
        let chat = manager.socket(namespace: "/chat", auth: .static(["token": "secret"]))
        let events = manager.events
        try await within("the connection") { try await chat.connect() }
        story.step("/chat with {\"token\":\"secret\"} connects: socket id \(chat.id ?? "?")")
        story.detail("Engine.IO \(manager.engineIOVersion.rawValue), opened over \(manager.transport?.rawValue ?? "?")")
        if manager.transport != .websocket {
            _ = try await within("the upgrade to WebSocket") {
                for await event in events where event == .upgrade { return true }
                return false
            }
        }
        story.step("upgraded from long-polling to WebSocket, as socket.io's own client does")
        return (manager, chat)
    }

    func eventsAndAcks(_ chat: Socket) async throws {
        story.chapter("Events and acknowledgements")
        let echoes = chat.events(named: "echo")
        try chat.emit("echo", "hello", 42, ["nested": [true, .null]])
        let echo = try await within("the echo") { await echoes.firstElement() }
        story.step("emit echo → the server echoed \(JSONValue.array(echo?.items ?? []).jsonString)")

        let start = ContinuousClock.now
        let reply = try await within("the ack") { try await chat.emitWithAck("ack", "ping", ["n": 1]) }
        let elapsed = ContinuousClock.now - start
        story.step("emitWithAck ack → \(JSONValue.array(reply).jsonString) in \(Self.milliseconds(elapsed)) ms")

        chat.once("server-ack") { event in event.ack?.respond(["pong from the client"] + event.items) }
        let results = chat.events(named: "server-ack-result")
        try chat.emit("server-ack", "question")
        let result = try await within("the server's ack result") { await results.firstElement() }
        story.step("the server asked us for an ack and got \(JSONValue.array(result?.items ?? []).jsonString)")
    }

    func binary(_ chat: Socket) async throws {
        story.chapter("Binary attachments")
        let first = Data((0..<64).map { UInt8($0) })
        let second = Data("a PNG would go here".utf8)
        let items: [JSONValue] = ["two files", .binary(first), ["thumbnail": .binary(second)]]
        let echoes = chat.events(named: "binary")
        try chat.emit("binary", items: items)
        let echoed = try await within("the binary echo") { await echoes.firstElement() }
        guard echoed?.items == items else { throw DemoFailure(description: "the binary echo differs from what was sent") }
        story.step("sent \(first.count) + \(second.count) bytes as attachments; they came back byte for byte")
    }

    func rooms(_ chat: Socket) async throws {
        story.chapter("Rooms and broadcast")
        let otherManager = try makeManager()
        let other = otherManager.socket(namespace: "/chat", auth: .static(["token": "secret"]))
        try await within("the second client") { try await other.connect() }
        _ = try await within("the second client joining the room") { try await other.emitWithAck("join", "swift") }
        _ = try await within("the first client joining the room") { try await chat.emitWithAck("join", "swift") }
        story.step("two clients joined the room \"swift\"")
        let heard = other.events(named: "room-message")
        let count = try await within("the room-message ack") { try await chat.emitWithAck("room-message", "swift", "hello, room") }
        let message = try await within("the room message") { await heard.firstElement() }
        story.step("room-message reached \(count.first?.intValue ?? 0) sockets; the other client heard \(JSONValue.array(message?.items ?? []).jsonString)")
        let broadcasts = other.events(named: "broadcast")
        try chat.emit("broadcast", "to everyone in /chat")
        _ = try await within("the broadcast") { await broadcasts.firstElement() }
        story.step("broadcast reached the whole namespace")
        await otherManager.close()
    }

    func forcedDisconnect(_ manager: Manager, _ chat: Socket) async throws {
        story.chapter("Server-side disconnect")
        let disconnects = chat.events(named: "disconnect")
        try chat.emit("kick")
        let event = try await within("the disconnect") { await disconnects.firstElement() }
        guard chat.status == .disconnected(.ioServerDisconnect) else {
            throw DemoFailure(description: "expected io server disconnect, got \(chat.status)")
        }
        story.step("the server kicked us: disconnect \"\(event?.items.first?.stringValue ?? "")\" (no automatic reconnection after it)")
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.2f", duration.inSeconds * 1000)
    }
}

extension AsyncStream {
    /// The next element, or `nil` when the stream ends.
    func firstElement() async -> Element? {
        var iterator = makeAsyncIterator()
        return await iterator.next()
    }
}
