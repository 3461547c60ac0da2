import Foundation
import Testing
import SocketIOProtocol

/// One row: an envelope and its exact wire text.
struct EnvelopeVector: Sendable, CustomTestStringConvertible {
    let name: String
    let envelope: Envelope
    let text: String

    init(_ name: String, _ envelope: Envelope, _ text: String) {
        self.name = name
        self.envelope = envelope
        self.text = text
    }

    var testDescription: String { name }
}

/// One row: input that must be rejected, and the error.
struct EnvelopeRejection: Sendable, CustomTestStringConvertible {
    let input: Frame
    let expected: EnvelopeError

    init(_ text: String, _ expected: EnvelopeError) {
        self.input = .text(text)
        self.expected = expected
    }

    init(binary: Data, _ expected: EnvelopeError) {
        self.input = .binary(binary)
        self.expected = expected
    }

    var testDescription: String {
        switch input {
        case .text(let text): text.count > 60 ? "\(text.prefix(60))… (\(text.utf8.count) bytes)" : text
        case .binary(let data): "binary \(Array(data))"
        }
    }
}

@Suite("Envelope")
struct EnvelopeTests {
    static let vectors: [EnvelopeVector] = [
        EnvelopeVector("event", .event(name: "news", data: ["title": "hi"]),
                       #"{"type":"event","event":"news","data":{"title":"hi"}}"#),
        EnvelopeVector("event with seq", .event(name: "news", data: 1, seq: 12),
                       #"{"type":"event","event":"news","data":1,"seq":12}"#),
        EnvelopeVector("event with null data", .event(name: "ping", data: nil),
                       #"{"type":"event","event":"ping","data":null}"#),
        EnvelopeVector("request", .request(name: "echo", data: "hello", id: 7),
                       #"{"type":"request","event":"echo","data":"hello","id":7}"#),
        EnvelopeVector("request with seq", .request(name: "echo", data: [1, "two"], id: 0, seq: 3),
                       #"{"type":"request","event":"echo","data":[1,"two"],"id":0,"seq":3}"#),
        EnvelopeVector("reply", .reply(id: 7, data: ["hello", nil]), #"{"type":"reply","id":7,"data":["hello",null]}"#),
        EnvelopeVector("empty reply", .reply(id: 8, data: []), #"{"type":"reply","id":8,"data":[]}"#),
        EnvelopeVector("error", .error(id: 7, message: "no handler for \"echo\""),
                       #"{"type":"error","id":7,"message":"no handler for \"echo\""}"#),
        EnvelopeVector("error without id", .error(id: nil, message: "bad"), #"{"type":"error","message":"bad"}"#),
        EnvelopeVector("ack", .ack(seq: 12), #"{"type":"ack","seq":12}"#),
        EnvelopeVector("reply with seq", .reply(id: 7, data: ["ok"], seq: 4), #"{"type":"reply","id":7,"data":["ok"],"seq":4}"#),
        EnvelopeVector("resume", .resume(channel: "c-1", received: 0), #"{"type":"resume","channel":"c-1","received":0}"#),
        EnvelopeVector("resumed", .resumed(channel: "c-1", received: 41), #"{"type":"resumed","channel":"c-1","received":41}"#),
        EnvelopeVector("largest integers", .request(name: "e", data: nil, id: Int(Envelope.maxInteger), seq: Envelope.maxInteger),
                       #"{"type":"request","event":"e","data":null,"id":9007199254740991,"seq":9007199254740991}"#),
        EnvelopeVector("unicode and escapes", .event(name: "chat ✉️", data: "line\nbreak \u{1}"),
                       #"{"type":"event","event":"chat ✉️","data":"line\nbreak \u0001"}"#),
    ]

    @Test("encodes to the exact text", arguments: vectors)
    func encodes(_ vector: EnvelopeVector) {
        #expect(vector.envelope.text == vector.text)
    }

    @Test("decodes the text, the bytes, the message and the JSON value", arguments: vectors)
    func decodes(_ vector: EnvelopeVector) throws {
        #expect(try Envelope(parsing: vector.text) == vector.envelope)
        #expect(try Envelope(parsing: Data(vector.text.utf8)) == vector.envelope)
        #expect(try Envelope(webSocketText: vector.text) == vector.envelope)
        #expect(try Envelope(json: vector.envelope.jsonValue) == vector.envelope)
        #expect(vector.envelope.jsonValue == (try JSONValue(parsing: vector.text)))
    }

    @Test func decodingIsLenientWhereTheTableSaysSo() throws {
        // Members in any order, unknown members ignored, missing data is null ([] for a reply).
        #expect(try Envelope(parsing: #"{"seq":1,"event":"a","type":"event","extra":{"x":1}}"#)
                == .event(name: "a", data: nil, seq: 1))
        #expect(try Envelope(parsing: #"{"type":"request","event":"a","id":2}"#) == .request(name: "a", data: nil, id: 2))
        #expect(try Envelope(parsing: #"{"type":"reply","id":2}"#) == .reply(id: 2, data: []))
        // 7.0 is the integer 7 in JSON; whitespace around the object is fine.
        #expect(try Envelope(parsing: " {\"type\":\"ack\",\"seq\":7.0}\n") == .ack(seq: 7))
    }

    @Test func binaryBecomesABase64Object() throws {
        let envelope = Envelope.event(name: "file", data: ["bytes": .binary(Data([1, 2, 3]))])
        #expect(envelope.text == #"{"type":"event","event":"file","data":{"bytes":{"base64":"AQID"}}}"#)
        #expect(try Envelope(parsing: envelope.text) == .event(name: "file", data: ["bytes": ["base64": "AQID"]]))
    }

    static let rejections: [EnvelopeRejection] = [
        EnvelopeRejection("", .invalidJSON(JSONError(.unexpectedEnd, offset: 0))),
        EnvelopeRejection("hello", .invalidJSON(JSONError(.unexpectedCharacter, offset: 0))),
        EnvelopeRejection(#"{"type":"event""#, .invalidJSON(JSONError(.unexpectedEnd, offset: 15))),
        EnvelopeRejection(#"{"type":"ack","seq":1} x"#, .invalidJSON(JSONError(.trailingData, offset: 23))),
        EnvelopeRejection("[1,2]", .notAnObject),
        EnvelopeRejection(#"{"type":"resume","received":0}"#, .missingField("channel")),
        EnvelopeRejection(#"{"type":"resume","channel":"","received":0}"#, .invalidField("channel", expected: "a string of 1 to 128 characters")),
        EnvelopeRejection(#"{"type":"resumed","channel":"c"}"#, .missingField("received")),
        EnvelopeRejection(#"{"type":"resume","channel":"c","received":-1}"#, .invalidField("received", expected: "an integer from 0 to 2^53 - 1")),
        EnvelopeRejection(#""event""#, .notAnObject),
        EnvelopeRejection("null", .notAnObject),
        EnvelopeRejection("{}", .missingField("type")),
        EnvelopeRejection(#"{"type":1}"#, .invalidField("type", expected: "a string")),
        EnvelopeRejection(#"{"type":"EVENT","event":"a"}"#, .unknownType("EVENT")),
        EnvelopeRejection(#"{"type":"ping"}"#, .unknownType("ping")),
        EnvelopeRejection(#"{"type":"event"}"#, .missingField("event")),
        EnvelopeRejection(#"{"type":"event","event":""}"#, .invalidField("event", expected: "a non-empty string")),
        EnvelopeRejection(#"{"type":"event","event":["a"]}"#, .invalidField("event", expected: "a string")),
        EnvelopeRejection(#"{"type":"event","event":"a","seq":-1}"#, .invalidField("seq", expected: "an integer from 0 to 2^53 - 1")),
        EnvelopeRejection(#"{"type":"event","event":"a","seq":"1"}"#, .invalidField("seq", expected: "an integer from 0 to 2^53 - 1")),
        EnvelopeRejection(#"{"type":"request","event":"a"}"#, .missingField("id")),
        EnvelopeRejection(#"{"type":"request","event":"a","id":1.5}"#, .invalidField("id", expected: "an integer from 0 to 2^53 - 1")),
        EnvelopeRejection(#"{"type":"request","event":"a","id":9007199254740992}"#,
                          .invalidField("id", expected: "an integer from 0 to 2^53 - 1")),
        EnvelopeRejection(#"{"type":"request","event":"a","id":1e300}"#, .invalidField("id", expected: "an integer from 0 to 2^53 - 1")),
        EnvelopeRejection(#"{"type":"request","event":"a","id":null}"#, .invalidField("id", expected: "an integer from 0 to 2^53 - 1")),
        EnvelopeRejection(#"{"type":"reply","data":[]}"#, .missingField("id")),
        EnvelopeRejection(#"{"type":"reply","id":1,"data":"x"}"#, .invalidField("data", expected: "an array")),
        EnvelopeRejection(#"{"type":"error","id":1}"#, .missingField("message")),
        EnvelopeRejection(#"{"type":"error","message":false}"#, .invalidField("message", expected: "a string")),
        EnvelopeRejection(#"{"type":"ack"}"#, .missingField("seq")),
        EnvelopeRejection(String(repeating: "[", count: 10_000), .invalidJSON(JSONError(.tooDeep, offset: 512))),
        EnvelopeRejection(binary: Data(#"{"type":"ack","seq":1}"#.utf8), .binaryMessage),
    ]

    @Test("rejects with a typed error", arguments: rejections)
    func rejects(_ row: EnvelopeRejection) {
        #expect(throws: row.expected) { try Envelope(row.input) }
    }

    @Test func rejectsBytesThatAreNotUTF8() {
        #expect(throws: EnvelopeError.self) { try Envelope(parsing: Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])) }
    }

    @Test func errorMessagesSayWhatIsWrong() {
        #expect(EnvelopeError.missingField("id").description == #"malformed envelope: missing "id""#)
        #expect(EnvelopeError.unknownType("ping").description == #"malformed envelope: unknown type "ping""#)
        #expect(EnvelopeError.invalidJSON(JSONError(.unexpectedEnd, offset: 3)).description
                == "malformed envelope: not JSON (JSON error: unexpected end of input at byte 3)")
    }
}
