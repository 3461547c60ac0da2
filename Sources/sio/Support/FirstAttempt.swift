import SocketIO

extension Socket {
    /// Connects, waiting for one attempt only: the namespace accepted, or the first failure as a
    /// one-line ``CLIError`` (the server's refusal, or the manager's `error` event for a
    /// connection that could not be made). The manager goes on retrying after a failure, as
    /// socket.io's client does; a command that waited for good would never end while the server
    /// is away (`sio connect`'s `connect` line in a script has no ctrl-C to stop it).
    func connectFirstAttempt(on manager: Manager) async throws {
        let managerEvents = manager.events
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await self.connect()
                } catch {
                    throw CLIError("\(error)")
                }
            }
            group.addTask {
                for await event in managerEvents {
                    if case .error(let message) = event { throw CLIError(message) }
                }
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
