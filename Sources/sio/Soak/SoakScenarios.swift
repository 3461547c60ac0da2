import SwitchboardCore
import Foundation
import Harness
import Logging
import NIOConcurrencyHelpers
import SocketIO
import SocketIOServer
import SwitchboardDemo

/// One scenario of the soak: a whole client/server story that asserts what it shows.
struct SoakScenario: Sendable {
    let name: String
    /// Runs the scenario; returns how many connection cuts it injected.
    let run: @Sendable () async throws -> Int
}

/// The scenarios `sio soak` runs each iteration.
enum SoakScenarios {
    static let silent = Logger.disabled("sio.soak")

    static func all(faults: Bool) -> [SoakScenario] {
        var scenarios = [
            SoakScenario(name: "demo scenes") { try await demo() },
            SoakScenario(name: "echo and acks over WebSocket") { try await echoAndAcks(.websocket, faults: faults) },
            SoakScenario(name: "echo and acks over polling") { try await echoAndAcks(.polling, faults: faults) },
            SoakScenario(name: "emit then close over WebSocket") { try await emitThenClose([.websocket]) },
            SoakScenario(name: "emit then close over polling") { try await emitThenClose([.polling]) },
        ]
        if faults {
            scenarios.append(SoakScenario(name: "acks through cuts and a stall") { try await acksThroughFaults() })
        }
        return scenarios
    }

    /// The demo's scenes, silently (the platform scene runs its own servers).
    static func demo() async throws -> Int {
        let host = DemoServerHost(logger: silent)
        let url = try await host.start()
        do {
            try await DemoScenes(story: DemoStory(silent: true), url: url, host: host).play()
            try await PlatformScene(story: DemoStory(silent: true)).play()
            try await FailoverScene(story: DemoStory(silent: true)).play()
        } catch {
            await host.stop()
            throw error
        }
        await host.stop()
        return 0
    }

    static func startDemoServer(pingInterval: Duration = .seconds(25), pingTimeout: Duration = .seconds(20)) async throws -> RunningServer {
        var configuration = DemoApplication.configuration
        configuration.pingInterval = pingInterval
        configuration.pingTimeout = pingTimeout
        let server = SocketIOServer(configuration: configuration, logger: silent)
        DemoApplication.install(on: server, logger: silent).cancel()
        return try await server.start()
    }

    /// 200 pipelined echoes come back in order, then 50 sequential acks; with faults, every byte
    /// is delayed by a millisecond through the fault proxy.
    static func echoAndAcks(_ transport: EngineTransportKind, faults: Bool) async throws -> Int {
        let server = try await startDemoServer()
        let proxy = faults ? try await FaultProxy.start(upstreamPort: server.port) : nil
        proxy?.delay(.milliseconds(1))
        var configuration = Manager.Configuration()
        configuration.transports = [transport]
        configuration.logger = silent
        let manager = try Manager(url: URL(string: "http://127.0.0.1:\(proxy?.port ?? server.port)")!, configuration: configuration)
        do {
            let socket = manager.socket()
            let echoes = socket.events(named: "echo")
            try await within(20, "connect over \(transport)") { try await socket.connect() }
            for number in 0..<200 { try socket.emit("echo", .number(Double(number))) }
            let received = try await within(20, "200 echoes") {
                var numbers: [Int] = []
                for await echo in echoes {
                    numbers.append(echo.items.first?.intValue ?? -1)
                    if numbers.count == 200 { break }
                }
                return numbers
            }
            guard received == Array(0..<200) else { throw DemoFailure(description: "echoes out of order or missing") }
            for number in 0..<50 {
                let reply = try await within(20, "ack \(number)") { try await socket.emitWithAck("ack", .number(Double(number))) }
                guard reply == [.number(Double(number))] else { throw DemoFailure(description: "ack \(number) answered \(reply)") }
            }
        } catch {
            await manager.close()
            await proxy?.stop()
            await server.stop()
            throw error
        }
        await manager.close()
        await proxy?.stop()
        await server.stop()
        return 0
    }

    /// 100 events emitted right before `manager.close()` all reach the server.
    static func emitThenClose(_ transports: [EngineTransportKind]) async throws -> Int {
        let server = SocketIOServer(logger: silent)
        let (counts, counted) = AsyncStream<Int>.makeStream()
        let seen = NIOLockedValueBox(0)
        server.namespace("/").onConnection { socket in
            socket.on("n") { _ in counted.yield(seen.withLockedValue { $0 += 1; return $0 }) }
        }
        let running = try await server.start()
        var configuration = Manager.Configuration()
        configuration.transports = transports
        configuration.logger = silent
        let manager = try Manager(url: running.url, configuration: configuration)
        do {
            let socket = manager.socket()
            try await within(20, "connect over \(transports)") { try await socket.connect() }
            for number in 0..<100 { try socket.emit("n", .number(Double(number))) }
            try await within(20, "manager.close()") { await manager.close() }
            _ = try await within(20, "the server counting 100 events") {
                for await count in counts where count == 100 { return true }
                return false
            }
        } catch {
            await manager.close()
            await running.stop()
            throw error
        }
        await running.stop()
        return 0
    }

    /// 100 at-least-once acks while the fault proxy cuts every connection every 200 ms and
    /// stalls it once (found by the server's short heartbeat): all acknowledged, in order.
    static func acksThroughFaults() async throws -> Int {
        let server = try await startDemoServer(pingInterval: .milliseconds(300), pingTimeout: .milliseconds(300))
        let proxy = try await FaultProxy.start(upstreamPort: server.port)
        var configuration = Manager.Configuration()
        configuration.transports = [.websocket]
        configuration.retries = 20
        configuration.defaultAckTimeout = .seconds(1)
        configuration.reconnectionDelay = .milliseconds(20)
        configuration.reconnectionDelayMax = .milliseconds(200)
        configuration.logger = silent
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: configuration)
        let cutting = proxy.cutRepeatedly(every: .milliseconds(200))
        do {
            let socket = manager.socket()
            try await within(20, "connect through the fault proxy") { try await socket.connect() }
            for number in 0..<100 {
                if number == 50 { proxy.stallAll() }
                let reply = try await within(30, "ack \(number) through faults") {
                    try await socket.emitWithAck("ack", .number(Double(number)))
                }
                guard reply == [.number(Double(number))] else { throw DemoFailure(description: "ack \(number) answered \(reply)") }
            }
        } catch {
            cutting.cancel()
            await manager.close()
            await proxy.stop()
            await server.stop()
            throw error
        }
        cutting.cancel()
        let cuts = await cutting.value
        await manager.close()
        await proxy.stop()
        await server.stop()
        return cuts
    }
}
