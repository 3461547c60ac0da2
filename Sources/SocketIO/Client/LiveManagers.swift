import NIOConcurrencyHelpers

/// Every manager alive in the process, for diagnostics (the soak harness prints what each one is
/// waiting on when a step misses its deadline). Weak: it keeps nothing alive.
package enum LiveManagers {
    private struct Entry: Sendable {
        weak let manager: Manager?
    }

    private static let entries = NIOLockedValueBox<[ObjectIdentifier: Entry]>([:])

    static func add(_ manager: Manager) {
        entries.withLockedValue { $0[ObjectIdentifier(manager)] = Entry(manager: manager) }
    }

    static func remove(_ id: ObjectIdentifier) {
        _ = entries.withLockedValue { $0.removeValue(forKey: id) }
    }

    /// The managers alive now.
    package static var all: [Manager] {
        entries.withLockedValue { $0.values.compactMap(\.manager) }
    }
}
