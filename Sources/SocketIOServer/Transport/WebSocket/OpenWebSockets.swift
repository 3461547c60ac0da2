import NIOConcurrencyHelpers
import NIOCore

/// The upgraded connections. No task serves them (their handlers do), so this is how stopping
/// the server waits for them to close.
final class OpenWebSockets: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Waiting for the last connection to close.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Tracks `channel` until it closes.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLockedValue { $0.channels[id] = channel }
        channel.closeFuture.whenComplete { _ in self.remove(id) }
    }

    var count: Int { state.withLockedValue { $0.channels.count } }

    /// Waits until every connection has closed; after `limit`, closes what is left.
    func closed(within limit: Duration) async {
        guard count > 0 else { return }
        await waitAtMost(limit, for: { await self.allClosed() }, thenEnd: {
            for channel in self.state.withLockedValue({ Array($0.channels.values) }) { channel.close(promise: nil) }
        })
    }

    private func remove(_ id: ObjectIdentifier) {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLockedValue { state in
            state.channels.removeValue(forKey: id)
            guard state.channels.isEmpty else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func allClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = state.withLockedValue { state in
                guard !state.channels.isEmpty else { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
