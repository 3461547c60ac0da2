import NIOConcurrencyHelpers

/// An action that runs at most once, whoever asks first: a cancel, a release.
///
/// The action is kept inside a struct, never as the whole value of a generic box: a function
/// stored directly as `NIOLockedValueBox<(() -> Void)?>`'s value is re-abstracted on every
/// `inout` access (one more thunk wrapped around it each time), so reads get slower and the
/// call stack deeper with every use. ``Callback`` is the same wrapper for a handler that is
/// called again and again.
package final class CallOnce: Sendable {
    private let pending: NIOLockedValueBox<Callback<Void>?>

    /// Runs `action` on the first ``run()``.
    package init(_ action: @escaping @Sendable () -> Void) {
        pending = NIOLockedValueBox(Callback(action))
    }

    /// Whether ``run()`` was called.
    package var hasRun: Bool { pending.withLockedValue { $0 == nil } }

    /// Runs the action (outside the lock) unless it ran already.
    package func run() {
        let action = pending.withLockedValue { pending in
            defer { pending = nil }
            return pending
        }
        action?.callAsFunction(())
    }
}

/// A `@Sendable` function in a struct, so it can be a generic container's value without being
/// re-abstracted on every access (see ``CallOnce``).
package struct Callback<Input>: Sendable {
    private let body: @Sendable (Input) -> Void

    package init(_ body: @escaping @Sendable (Input) -> Void) {
        self.body = body
    }

    package func callAsFunction(_ input: Input) {
        body(input)
    }
}

extension Callback where Input == Void {
    package init(_ body: @escaping @Sendable () -> Void) {
        self.body = { _ in body() }
    }
}

/// Lets exactly one caller through: an acknowledgement answered once, whoever answers.
package final class OnceFlag: Sendable {
    private let passed = NIOLockedValueBox(false)

    package init() {}

    /// `true` for the first call only.
    package func claim() -> Bool {
        passed.withLockedValue { passed in
            defer { passed = true }
            return !passed
        }
    }
}
