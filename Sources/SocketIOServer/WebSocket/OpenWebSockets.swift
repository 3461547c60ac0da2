import NIOConcurrencyHelpers
import NIOCore

/// The upgraded connections. No task serves them (their handlers do), so this is how stopping
/// the server waits for them to close.
final class OpenWebSockets: Sendable {
    private let channels = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])

    /// Tracks `channel` until it closes.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLockedValue { $0[id] = channel }
        channel.closeFuture.whenComplete { [channels] _ in
            _ = channels.withLockedValue { $0.removeValue(forKey: id) }
        }
    }

    var count: Int { channels.withLockedValue { $0.count } }

    /// Waits until every connection open now has closed; after `limit`, closes what is left.
    func closed(within limit: Duration) async {
        let open = channels.withLockedValue { Array($0.values) }
        guard !open.isEmpty else { return }
        await withTaskGroup(of: Void.self) { waiting in
            waiting.addTask {
                for channel in open { try? await channel.closeFuture.get() }
            }
            waiting.addTask { try? await Task.sleep(for: limit) }
            await waiting.next()
            for channel in open { channel.close(promise: nil) }
            waiting.cancelAll()
        }
    }
}
