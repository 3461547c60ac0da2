import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// `handlersOnEventLoop`: a connection's handlers run on its event loop (the default), in order,
/// and answer from there — over WebSocket and over long-polling; with it off they run on the
/// concurrency pool, in order too.
@Suite("Server handlers on the event loop")
struct HandlersOnEventLoopTests {
    @Test("the default is the event loop")
    func onByDefault() {
        #expect(SocketIOServer.Configuration().handlersOnEventLoop)
    }

    @Test(arguments: [true, false])
    func handlersRunInOrderWhereConfigured(onEventLoop: Bool) async throws {
        let seen = Seen()
        try await DemoServer.with({ $0.handlersOnEventLoop = onEventLoop }, installingDemo: false, setup: seen.install) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            _ = try await client.connect()
            for number in 0..<100 { try client.send("42\(number)[\"n\",\(number)]") }
            var acks: [String] = []
            while acks.count < 100 {
                let packet = try await client.next("an ack")
                if packet.hasPrefix("43") { acks.append(packet) }
            }
            #expect(acks == (0..<100).map { "43\($0)[\($0)]" }, "every ack, in order")
            let result = seen.numbers.withLockedValue { $0 }
            #expect(result.numbers == Array(0..<100))
            #expect(result.offLoop == (onEventLoop ? 0 : 100), "every handler ran \(onEventLoop ? "on an event loop" : "on the pool")")
            client.socket.drop()
        }
    }

    @Test(arguments: [true, false])
    func pollingHandlersRunWhereConfigured(onEventLoop: Bool) async throws {
        let seen = Seen()
        try await DemoServer.with({ $0.handlersOnEventLoop = onEventLoop }, installingDemo: false, setup: seen.install) { demo in
            let client = try await PollingClient.open(port: demo.port)
            try await client.post(["40"])
            #expect(try await client.receive(1).first?.hasPrefix("40") == true, "the namespace's CONNECT")
            try await client.post((0..<20).map { "42\($0)[\"n\",\($0)]" })
            let acks = try await client.receive(20)
            #expect(acks == (0..<20).map { "43\($0)[\($0)]" }, "every ack, in order")
            let result = seen.numbers.withLockedValue { $0 }
            #expect(result.numbers == Array(0..<20))
            #expect(result.offLoop == (onEventLoop ? 0 : 20), "every handler ran \(onEventLoop ? "on an event loop" : "on the pool")")
        }
    }

    /// What the handlers of event `n` saw: the numbers in order, and how many ran off any event
    /// loop. Each acknowledges with its items.
    final class Seen: Sendable {
        let numbers = NIOLockedValueBox<(numbers: [Int], offLoop: Int)>(([], 0))

        @Sendable func install(on server: SocketIOServer) {
            server.namespace("/").onConnection { socket in
                socket.on("n") { event in
                    let onLoop = MultiThreadedEventLoopGroup.currentEventLoop != nil
                    self.numbers.withLockedValue { seen in
                        seen.numbers.append(event.items.first?.intValue ?? -1)
                        if !onLoop { seen.offLoop += 1 }
                    }
                    event.ack?.respond(event.items)
                }
            }
        }
    }
}
