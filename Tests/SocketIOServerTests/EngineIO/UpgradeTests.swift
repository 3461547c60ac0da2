import Foundation
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

@Suite("Upgrade from polling to WebSocket")
struct UpgradeTests {
    @Test("2probe → 3probe, the held GET is released with 6, 5 switches; buffered packets follow on the WebSocket")
    func upgrade() async throws {
        try await DemoServer.with { demo in
            let client = try await PollingClient.open(port: demo.port)
            try await client.post(["40"])
            let connect = try await client.receive(1)
            let id = try #require(try JSONValue(parsing: String(connect[0].dropFirst(2)))["sid"]?.stringValue)
            let held = Task { try await client.get() }

            let ws = try await RawWebSocket.open(port: demo.port, target: "/socket.io/?EIO=4&transport=websocket&sid=\(client.sid)")
            try ws.send(text: "2probe")
            #expect(try await ws.nextText() == "3probe")
            let released = try await withTimeout(10, "the held GET") { try await held.value }
            #expect(released.status == 200)
            #expect(released.packets == ["6"])

            // Emitted between the probe and the upgrade: waits in the polling buffer, then
            // goes out on the WebSocket first.
            try #require(demo.server.namespace("/").socket(id: id)).emit("during", "upgrade")
            try ws.send(text: "5")
            try ws.send(text: #"42["echo","over ws"]"#)
            #expect(try await ws.nextText() == #"42["during","upgrade"]"#)
            #expect(try await ws.nextText() == #"42["echo","over ws"]"#)
            try await demo.events.wait("upgraded") { $0 == .sessionUpgraded(sid: client.sid) }

            // Polling is over for this session; a second WebSocket with the sid is refused.
            #expect(try await client.get().status == 400)
            let second = try await RawWebSocket.connect(port: demo.port, target: "/socket.io/?EIO=4&transport=websocket&sid=\(client.sid)")
            #expect(throws: UnexpectedReply.self) { try second.get() }
            ws.drop()
        }
    }

    @Test("no 5 within upgradeTimeout: the probe closes, the session stays on polling")
    func upgradeTimeout() async throws {
        // The test clock: the probe answers however loaded the machine, then the timeout passes.
        // 7 s is no other timer's length, so the wait below finds the upgrade's own timer.
        let clock = ManualClock()
        let upgradeTimeout = Duration.seconds(7)
        try await DemoServer.with({ $0.upgradeTimeout = upgradeTimeout; $0.clock = clock }) { demo in
            let client = try await PollingClient.open(port: demo.port)
            try await client.post(["40"])
            _ = try await client.receive(1)
            let ws = try await RawWebSocket.open(port: demo.port, target: "/socket.io/?EIO=4&transport=websocket&sid=\(client.sid)")
            try ws.send(text: "2probe")
            #expect(try await ws.nextText() == "3probe")
            // The timer is armed when the WebSocket arrives, and starts sleeping on its own task:
            // advancing before it sleeps would leave it waiting 7 s past the new time.
            _ = await clock.waitForSleep(1) { $0 == upgradeTimeout }
            clock.advance(by: upgradeTimeout)
            try await ws.waitForClose()
            try await client.post([#"42["echo","still polling"]"#])
            #expect(try await client.receive(1) == [#"42["echo","still polling"]"#])
        }
    }

    @Test("anything but 2probe/5 on the probe abandons the upgrade")
    func probeMisbehaves() async throws {
        try await DemoServer.with { demo in
            let client = try await PollingClient.open(port: demo.port)
            try await client.post(["40"])
            _ = try await client.receive(1)
            let ws = try await RawWebSocket.open(port: demo.port, target: "/socket.io/?EIO=4&transport=websocket&sid=\(client.sid)")
            try ws.send(text: #"42["echo","too early"]"#)
            try await ws.waitForClose()
            try await client.post([#"42["echo","polling"]"#])
            #expect(try await client.receive(1) == [#"42["echo","polling"]"#])
        }
    }
}
