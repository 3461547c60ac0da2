public import SocketIOProtocol

extension JSONValue {
    /// The value as it reads back after being written: a number that is not finite (which the
    /// parser makes of `1e999`, like `JSON.parse`) is written as `null`, as `JSON.stringify`
    /// writes it. Comparing against this keeps round-trip checks exact for everything else.
    public var afterWriting: JSONValue {
        switch self {
        case .number(let number): number.isFinite ? self : .null
        case .array(let elements): .array(elements.map(\.afterWriting))
        case .object(let object):
            .object(JSONObject(object.map { ($0.key, $0.value.afterWriting) }))
        case .null, .bool, .string, .binary: self
        }
    }
}
