import NIOConcurrencyHelpers

/// Every object of one kind alive in the process, for diagnostics (the soak harness prints what
/// each manager and server is waiting on when a step misses its deadline). Weak: it keeps
/// nothing alive.
package final class LiveRegistry<Object: AnyObject & Sendable>: Sendable {
    private struct Entry: Sendable {
        weak let object: Object?
    }

    private let entries = NIOLockedValueBox<[ObjectIdentifier: Entry]>([:])

    package init() {}

    /// Adds `object` (until ``remove(_:)``, or until it is gone).
    package func add(_ object: Object) {
        entries.withLockedValue { $0[ObjectIdentifier(object)] = Entry(object: object) }
    }

    /// Forgets the object with this identity (call it from `deinit`).
    package func remove(_ id: ObjectIdentifier) {
        _ = entries.withLockedValue { $0.removeValue(forKey: id) }
    }

    /// The objects alive now.
    package var all: [Object] {
        entries.withLockedValue { $0.values.compactMap(\.object) }
    }
}
