/// Waits for `work` at most `limit`, then calls `end` — which must make `work` finish, and is
/// called in either case, so it must be harmless once `work` has finished — and returns when
/// `work` has.
///
/// How the server's stop bounds its waits: for the service group, and for the upgraded
/// WebSockets (``OpenWebSockets``).
func waitAtMost(
    _ limit: Duration,
    for work: @escaping @Sendable () async -> Void,
    thenEnd end: @escaping @Sendable () -> Void
) async {
    await withTaskGroup(of: Void.self) { waiting in
        waiting.addTask { await work() }
        waiting.addTask { try? await Task.sleep(for: limit) }
        await waiting.next()
        end()
        waiting.cancelAll()
    }
}
