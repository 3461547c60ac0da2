import Foundation
import Logging
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// A request whose handler is still running when the client resumes its channel on a new
/// transport: the answer goes on the new one. A refusal (the handler threw) is an unnumbered
/// `error` the server does not send again, and the `resumed` the client got already counts the
/// request as delivered, so the client would never send it again either: before, the refusal was
/// queued on the old transport, closed by then, and the client's request waited out its timeout.
@Suite(.timeLimit(.minutes(1)))
struct ChannelAnswerAfterResumeTests {
    struct Declined: Error, CustomStringConvertible {
        var description: String { "declined" }
    }

    @Test func aRefusalReachesTheTransportTheClientResumedOn() async throws {
        let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let server = SocketIOServer(logger: silent)
        let channels = ReliableChannels(server: server)
        let (started, finish) = (Gate(), Gate())
        channels.onChannel { channel in
            channel.onRequest("slow") { _ in
                started.open()
                await finish.wait()
                throw Declined()
            }
        }
        server.onPlainWebSocket { connection in try await channels.serve(connection) }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        defer { finish.open() }

        let first = try await RawWebSocket.open(port: running.port, target: "/ws?channel=c")
        try first.send(text: #"{"type":"resume","channel":"c","received":0}"#)
        #expect(try await first.nextText("resumed") == #"{"type":"resumed","channel":"c","received":0}"#)
        try first.send(text: #"{"type":"request","event":"slow","data":null,"id":4,"seq":1}"#)
        try await withTimeout(10, "the handler running") { await started.wait() }

        // The client moves to a new transport while the handler runs.
        let second = try await RawWebSocket.open(port: running.port, target: "/ws?channel=c")
        try second.send(text: #"{"type":"resume","channel":"c","received":0}"#)
        #expect(try await second.nextText("resumed") == #"{"type":"resumed","channel":"c","received":1}"#)
        try await first.waitForClose()

        finish.open()
        #expect(try await second.nextText("the refusal") == #"{"type":"error","id":4,"message":"declined"}"#)
        await running.stop()
    }
}
