import NIOConcurrencyHelpers
import SwitchboardCore

/// Where the app's lifecycle stands for the pool: active, or suspended since a moment with a
/// grace. ``AppLifecycle/suspending`` while the grace runs, ``AppLifecycle/suspended`` after it.
/// Its own owner, beside the pool's slots: it changes on the app's notifications, not on leases.
final class AppSuspension: Sendable {
    private let clock: any Clock<Duration>
    /// When the app was suspended and its grace, while it is.
    private let suspension = NIOLockedValueBox<(since: Timeline, grace: Duration)?>(nil)

    init(clock: any Clock<Duration>) {
        self.clock = clock
    }

    /// Where the app's lifecycle is now.
    var current: AppLifecycle {
        guard let suspension = suspension.withLockedValue({ $0 }) else { return .active }
        return suspension.since.now() >= suspension.grace ? .suspended : .suspending
    }

    /// The app was suspended (its grace counts from the first call).
    func suspend(grace: Duration) {
        let clock = self.clock
        suspension.withLockedValue { $0 = $0 ?? (Timeline(clock), grace) }
    }

    /// The app is active again.
    func resume() {
        suspension.withLockedValue { $0 = nil }
    }
}
