import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// A channel's handlers run one at a time, in order, also when the client moves the channel to
/// a new transport while a handler still runs. Each transport has a handler task of its own: the
/// new one's ran the next message beside the old one's, so an async handler's effects could land
/// out of order.
@Suite(.timeLimit(.minutes(1)))
struct ChannelHandlersAcrossResumeTests {
    @Test func theNextMessageWaitsForTheHandlerOnTheOldTransport() async throws {
        let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let server = SocketIOServer(logger: silent)
        let channels = ReliableChannels(server: server)
        let (started, finish) = (Gate(), Gate())
        let log = NIOLockedValueBox<[String]>([])
        channels.onChannel { channel in
            channel.on("step") { data in
                let n = data.intValue ?? 0
                log.withLockedValue { $0.append("start \(n)") }
                if n == 1 {
                    started.open()
                    await finish.wait()
                }
                log.withLockedValue { $0.append("end \(n)") }
            }
        }
        server.onPlainWebSocket { connection in try await channels.serve(connection) }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        defer { finish.open() }

        let first = try await RawWebSocket.open(port: running.port, target: "/ws?channel=c")
        try first.send(text: #"{"type":"resume","channel":"c","received":0}"#)
        #expect(try await first.nextText("resumed") == #"{"type":"resumed","channel":"c","received":0}"#)
        try first.send(text: #"{"type":"event","event":"step","data":1,"seq":1}"#)
        try await withTimeout(10, "the first handler running") { await started.wait() }

        // The client moves to a new transport while the first handler runs, and sends the next.
        let second = try await RawWebSocket.open(port: running.port, target: "/ws?channel=c")
        try second.send(text: #"{"type":"resume","channel":"c","received":0}"#)
        #expect(try await second.nextText("resumed") == #"{"type":"resumed","channel":"c","received":1}"#)
        try second.send(text: #"{"type":"event","event":"step","data":2,"seq":2}"#)
        // Either it waits for its turn (right) or its handler started beside the first (wrong).
        try await withTimeout(10, "the second message reaching its handler task") {
            while channels.handlerTurns.waiting(for: "c") == 0, !log.withLockedValue({ $0.contains("start 2") }) {
                await Task.yield()
            }
        }
        finish.open()
        #expect(try await second.nextText("the acknowledgement") == #"{"type":"ack","seq":2}"#)
        #expect(log.withLockedValue { $0 } == ["start 1", "end 1", "start 2", "end 2"])
        #expect(channels.handlerTurns.waiting(for: "c") == 0)
        await running.stop()
    }
}
