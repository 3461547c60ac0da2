/// Ports for tests that stop a server and start it again where its clients expect it.
///
/// A server started on port 0 gets an ephemeral port; once it stops, any other test starting a
/// server on port 0 (tests run in parallel) may be handed that very port before the restart.
/// Ports below Linux's ephemeral range (32768 and up) are never handed out that way.
public enum TestPorts {
    /// A random port below the ephemeral range.
    public static func outsideEphemeralRange() -> Int {
        Int.random(in: 20_000..<32_000)
    }

    /// Runs `start` with ports below the ephemeral range until one is free (at most `attempts`).
    public static func start<T>(attempts: Int = 8, _ start: (Int) async throws -> T) async throws -> T {
        var lastError: (any Error)?
        for _ in 0..<max(attempts, 1) {
            do {
                return try await start(outsideEphemeralRange())
            } catch {
                lastError = error
            }
        }
        throw lastError ?? TestTimeout(what: "a free port", seconds: 0)
    }

    /// Starts a server again on `port`, retrying while the old listener is still being torn down
    /// (a stopped server's socket may close a moment after `stop()` returns on a loaded
    /// machine). Retries every 50 ms, for at most `seconds`.
    public static func restart<T>(on port: Int, within seconds: Double = 15, _ start: (Int) async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            do {
                return try await start(port)
            } catch {
                if ContinuousClock.now >= deadline { throw error }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}
