public import SocketIOProtocol

/// A dotted path into a JSON value, such as `msg_body.extra.order_no`.
///
/// Each component names an object member; on an array, a component that is a non-negative
/// integer (`items.0.sku`) picks that element. A key that itself contains a dot can be reached
/// with ``init(components:)``.
///
/// ```swift
/// let path: JSONKeyPath = "msg_body.extra.order_no"
/// path.value(in: message)   // .string("TAINIUBILE1234"), or nil when a step is missing
/// ```
public struct JSONKeyPath: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The steps from the root, outermost first.
    public let components: [String]

    /// The path written with dots: `"msg_body.extra.order_no"`.
    public init(_ dotted: String) {
        components = dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The path with these steps, for keys that contain dots.
    public init(components: [String]) {
        self.components = components
    }

    /// The value of a string literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The dotted form.
    public var description: String { components.joined(separator: ".") }

    /// The value at this path, or `nil` when a step is missing or goes through a value that is
    /// neither an object nor an array. An explicit `null` at the path is `.null`, not `nil`.
    public func value(in root: JSONValue) -> JSONValue? {
        var current = root
        for component in components {
            switch current {
            case .object(let object):
                guard let next = object[component] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Int(component), elements.indices.contains(index) else { return nil }
                current = elements[index]
            case .null, .bool, .number, .string, .binary:
                return nil
            }
        }
        return current
    }
}
