import Logging
import PostgresNIO
import SwitchboardCore

/// Runs ``ListenerLiveness`` for one listening connection, until the connection is declared
/// silent or the task is cancelled (the connection was lost otherwise, or the transport shut
/// down).
enum ListenerWatchdog {
    /// Checks on `timeline`: `probe` sends one probe and returns once it is answered (it is let
    /// go at its deadline, even if stuck: see `Timeline.withDeadline`); `silent` runs once,
    /// when nothing was heard for `timeout`, and the run ends.
    static func run(
        interval: Duration,
        timeout: Duration,
        timeline: Timeline,
        probe: @escaping @Sendable () async throws -> Void,
        silent: () async -> Void
    ) async {
        var liveness = ListenerLiveness(interval: interval, timeout: timeout, openedAt: timeline.now())
        while !Task.isCancelled {
            let now = timeline.now()
            switch liveness.check(at: now) {
            case .wait(let until):
                do { try await timeline.sleep(until - now) } catch { return }
            case .probe(let answerBy):
                do {
                    try await timeline.withDeadline(answerBy - now, onDeadline: { Unanswered() }, probe)
                    liveness.heard(at: timeline.now())
                } catch {
                    // Unanswered in time, or failed (its connection closed): the next check
                    // says silent once the timeout has passed without an answer.
                    if Task.isCancelled { return }
                }
            case .silent:
                await silent()
                return
            case .stop:
                return
            }
        }
    }

    private struct Unanswered: Error {}

    /// Watches the listening `connection`: a `SELECT 1` on it every `interval` after it was
    /// last heard from; silent for `timeout`, it is closed, which the transport's watcher
    /// reports as a loss (reconnection, then the journal catch-up).
    static func start(watching connection: PostgresConnection, interval: Duration, timeout: Duration, logger: Logger) -> Task<Void, Never> {
        let timeline = Timeline(ContinuousClock(), scheduler: Timeline.eventLoopScheduler(connection.eventLoop))
        return Task {
            await run(interval: interval, timeout: timeout, timeline: timeline) {
                _ = try await connection.query("SELECT 1", logger: logger).collect()
            } silent: {
                logger.warning("the PostgreSQL listening connection answered nothing for \(timeout); closing it to reconnect")
                try? await connection.close()
            }
        }
    }
}
