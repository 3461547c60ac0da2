public import SocketIOProtocol

/// What a subscriber wants to receive: messages with a value at a key path, optionally equal to
/// a given value.
///
/// Equality is JSON-typed: the string `"1"` is not the number `1` (while `1` and `1.0` are the
/// same number, as in JavaScript); objects compare without regard to key order. A missing key is
/// never equal to anything, not even `.null`.
///
/// ```swift
/// center.subscribe(screen, to: .value(at: "msg_body.extra.order_no", equals: "TAINIUBILE1234"))
/// center.subscribe(badge, to: .anyValue(at: "msg_body.extra.coupon"))   // any non-null value
/// ```
public struct MessageCondition: Hashable, Sendable, CustomStringConvertible {
    /// Where in the message (from its root, so `msg_body.…`) to look.
    public let keyPath: JSONKeyPath
    /// The value required there; `nil` accepts any value except `null`.
    public let value: JSONValue?

    /// A condition on `keyPath`: equal to `value`, or, when `value` is `nil`, present and not null.
    public init(keyPath: JSONKeyPath, value: JSONValue?) {
        self.keyPath = keyPath
        self.value = value
    }

    /// Messages whose value at `keyPath` equals `value` (JSON-typed).
    public static func value(at keyPath: JSONKeyPath, equals value: JSONValue) -> MessageCondition {
        MessageCondition(keyPath: keyPath, value: value)
    }

    /// Messages that have a non-null value at `keyPath`.
    public static func anyValue(at keyPath: JSONKeyPath) -> MessageCondition {
        MessageCondition(keyPath: keyPath, value: nil)
    }

    /// Whether a message whose value at ``keyPath`` is `found` (nil when missing) matches.
    public func matches(_ found: JSONValue?) -> Bool {
        guard let found else { return false }
        guard let value else { return !found.isNull }
        return found == value
    }

    /// A one-line description, for logs.
    public var description: String {
        guard let value else { return "\(keyPath) != null" }
        return "\(keyPath) == \(value.jsonString)"
    }
}
