import Foundation
import SocketIOProtocol
import SocketIOServer
import Testing

@testable import SocketIOPostgres

@Suite("Notification format (@socket.io/postgres-adapter's wire)")
struct NotificationFormatTests {
    let format = NotificationFormat(channelPrefix: "socket.io", payloadThreshold: 8000)

    /// A broadcast whose JSON is exactly `bytes` UTF-8 bytes long.
    func broadcast(ofJSONSize bytes: Int) -> ClusterMessage {
        var message = ClusterMessage(uid: "abc", namespace: "/", type: .broadcast, data: ["text": .string("")])
        let overhead = message.json.jsonString.utf8.count
        message.data = ["text": .string(String(repeating: "x", count: bytes - overhead))]
        return message
    }

    @Test("a namespace's channel is <prefix>#<namespace>")
    func channel() {
        #expect(format.channel(for: "/") == "socket.io#/")
        #expect(NotificationFormat(channelPrefix: "app", payloadThreshold: 1).channel(for: "/chat") == "app#/chat")
    }

    @Test("a small message is notified as its JSON, socket.io's member order")
    func inline() throws {
        let message = ClusterMessage(uid: "4f2a", namespace: "/", type: .socketsJoin, data: ["rooms": .array([.string("r")])])
        let outgoing = format.outgoing(message)
        #expect(outgoing == .notify(#"{"type":4,"data":{"rooms":["r"]},"uid":"4f2a","nsp":"/"}"#))
        guard case .notify(let payload) = outgoing else { return }
        #expect(try NotificationFormat.incoming(payload) == .message(message))
    }

    @Test("7999 bytes of JSON go inline, 8000 through the table")
    func threshold() throws {
        let small = broadcast(ofJSONSize: 7999)
        #expect(small.json.jsonString.utf8.count == 7999)
        guard case .notify = format.outgoing(small) else {
            Issue.record("7999 bytes should be notified inline")
            return
        }
        let large = broadcast(ofJSONSize: 8000)
        #expect(large.json.jsonString.utf8.count == 8000)
        guard case .attachment(let bytes) = format.outgoing(large) else {
            Issue.record("8000 bytes should go through the table")
            return
        }
        #expect(try NotificationFormat.message(fromAttachment: bytes) == large)
    }

    @Test("the threshold counts UTF-8 bytes, not characters")
    func thresholdInBytes() {
        let message = ClusterMessage(uid: "u", namespace: "/", type: .broadcast, data: ["t": .string(String(repeating: "é", count: 4000))])
        guard case .attachment = format.outgoing(message) else {
            Issue.record("4000 two-byte characters are over 8000 bytes")
            return
        }
    }

    @Test("binary goes through the table for broadcasts, their acks and server-side events", arguments: ClusterMessageType.allCases)
    func binary(type: ClusterMessageType) throws {
        let message = ClusterMessage(uid: "u", namespace: "/", type: type, data: ["packet": .array([.binary(Data([1, 2, 3]))])])
        let viaTable: Set<ClusterMessageType> = [.broadcast, .broadcastAck, .serverSideEmit, .serverSideEmitResponse]
        switch format.outgoing(message) {
        case .attachment(let bytes):
            #expect(viaTable.contains(type))
            #expect(try NotificationFormat.message(fromAttachment: bytes) == message)
        case .notify:
            #expect(!viaTable.contains(type))
        }
    }

    @Test("the attachment is the whole message in MessagePack, binary intact")
    func messagePack() throws {
        let bytes = Data((0 ... 255).map(UInt8.init))
        let message = ClusterMessage(
            uid: "u", namespace: "/chat", type: .serverSideEmit,
            data: ["requestId": .string("r1"), "packet": .array([.string("event"), .binary(bytes), .number(1.5)])]
        )
        guard case .attachment(let encoded) = format.outgoing(message) else {
            Issue.record("binary should go through the table")
            return
        }
        #expect(encoded == MessagePackValue(json: message.json).encoded)
        let decoded = try JSONValue(messagePack: MessagePackValue(decoding: encoded))
        #expect(decoded == message.json)
        #expect(try NotificationFormat.message(fromAttachment: encoded) == message)
    }

    @Test("the header names the row as a JSON string, as node-postgres returns a bigserial")
    func header() throws {
        let message = ClusterMessage(uid: "4f2a", namespace: "/", type: .broadcast)
        let header = NotificationFormat.header(for: message, attachmentID: "12")
        #expect(header == #"{"uid":"4f2a","type":3,"attachmentId":"12"}"#)
        #expect(try NotificationFormat.incoming(header) == .attachment(id: "12"))
    }

    @Test("a numeric attachmentId is read too")
    func numericAttachmentID() throws {
        #expect(try NotificationFormat.incoming(#"{"uid":"u","type":3,"attachmentId":42}"#) == .attachment(id: "42"))
    }

    @Test("unreadable notifications throw", arguments: [
        "not json",
        "[1,2]",
        #"{"uid":"u","type":3}"#,
        #"{"uid":"u","nsp":"/","type":99}"#,
        #"{"uid":"u","type":3,"attachmentId":true}"#,
        #"{"uid":"u","type":3,"attachmentId":1.5}"#,
    ])
    func unreadable(payload: String) {
        #expect(throws: ClusterMessageError.self) { try NotificationFormat.incoming(payload) }
    }

    @Test("an attachment that is not a MessagePack message throws")
    func unreadableAttachment() {
        #expect(throws: ClusterMessageError.self) { try NotificationFormat.message(fromAttachment: [0xc1]) }
        #expect(throws: ClusterMessageError.self) {
            try NotificationFormat.message(fromAttachment: MessagePackValue.string("hello").encoded)
        }
    }
}
