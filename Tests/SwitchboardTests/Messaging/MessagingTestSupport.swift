import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import Switchboard

/// An order-status message in the format of SPEC.md.
func orderMessage(_ id: String, order: JSONValue, status: String = "shipped") -> JSONValue {
    [
        "msg_id": .string(id),
        "msg_body": [
            "timestamp": 172831819, "type": "order_status_change", "title": .string(status),
            "sub_title": "", "content": "", "fmt_date": "07-22 18:22",
            "extra": ["order_no": order],
        ],
    ]
}

/// A message with this id and body.
func message(_ id: String, _ body: JSONValue) -> JSONValue {
    ["msg_id": .string(id), "msg_body": body]
}

/// Who received what, in order, across several subscribers.
final class DeliveryLog: Sendable {
    private let entries = NIOLockedValueBox<[(subscriber: String, id: MessageID, processed: Bool)]>([])

    func record(_ subscriber: String, _ message: Message) {
        entries.withLockedValue { $0.append((subscriber, message.id, message.processed)) }
    }

    /// Subscriber names in delivery order.
    var order: [String] { entries.withLockedValue { $0.map(\.subscriber) } }
    /// Message ids `subscriber` received, in order.
    func ids(of subscriber: String) -> [MessageID] {
        entries.withLockedValue { $0.filter { $0.subscriber == subscriber }.map(\.id) }
    }
    /// The processed mark each delivery carried, in order.
    var processedMarks: [Bool] { entries.withLockedValue { $0.map(\.processed) } }
    var count: Int { entries.withLockedValue { $0.count } }
}

/// A subscriber object that records into a log and answers with a fixed disposition.
final class Recorder: MessageSubscriber {
    let name: String
    let log: DeliveryLog
    let disposition: MessageDisposition

    init(_ name: String, log: DeliveryLog = DeliveryLog(), disposition: MessageDisposition = .continue) {
        self.name = name
        self.log = log
        self.disposition = disposition
    }

    func receive(_ message: Message) async -> MessageDisposition {
        log.record(name, message)
        return disposition
    }

    var ids: [MessageID] { log.ids(of: name) }
}

/// Collects what a `Logger` logs.
final class LogRecorder: Sendable {
    private let lines = NIOLockedValueBox<[String]>([])

    var messages: [String] { lines.withLockedValue { $0 } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.lines.withLockedValue { $0.append(event.message.description) }
        }
    }
}
