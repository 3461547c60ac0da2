/// Lets `#expect` call mutating members of a state machine (its closure cannot mutate a
/// captured `var`).
public final class Box<Value>: @unchecked Sendable {
    public var value: Value
    public init(_ value: Value) { self.value = value }
}
