#if canImport(UIKit)
// Apple platforms with UIKit only: this file cannot be compiled on the Linux machine the project
// is built and tested on, so it stays thin and mechanical (two notifications, two calls).
import UIKit

extension ConnectionManager {
    /// Suspends the pool when the app enters the background and resumes it when it comes back
    /// to the foreground (``suspend(after:)``, ``resume()``). Keep the returned observer for as
    /// long as it should act; it stops when released.
    @MainActor
    public func followAppLifecycle(grace: Duration = .seconds(5)) -> AppLifecycleObserver {
        AppLifecycleObserver(
            suspend: { [weak self] in self?.suspend(after: grace) },
            resume: { [weak self] in self?.resume() }
        )
    }
}

/// Calls `suspend` on `didEnterBackground` and `resume` on `willEnterForeground`.
@MainActor
public final class AppLifecycleObserver {
    /// Written once in `init`, read once in `deinit`.
    nonisolated(unsafe) private let tokens: [any NSObjectProtocol]

    /// An observer of UIKit's background and foreground notifications.
    public init(suspend: @escaping @Sendable () -> Void, resume: @escaping @Sendable () -> Void) {
        let center = NotificationCenter.default
        tokens = [
            center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) { _ in suspend() },
            center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main) { _ in resume() },
        ]
    }

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}
#endif
