import NIOConcurrencyHelpers

extension ConnectionID {
    private static let counter = NIOLockedValueBox<UInt64>(0)

    /// A new identifier, unique within the process.
    static func next() -> ConnectionID {
        ConnectionID(rawValue: counter.withLockedValue { value in
            value += 1
            return value
        })
    }
}
