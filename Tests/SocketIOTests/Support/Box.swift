/// Lets `#expect` call mutating members of a state machine (its closure cannot mutate a
/// captured `var`).
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
