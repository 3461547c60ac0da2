import NIOConcurrencyHelpers
import SocketIOServer

/// Each subscribed namespace's `deliver` closure, read by the receivers without a hop to the
/// transport's actor.
final class DeliveryTable: Sendable {
    typealias Deliver = @Sendable (ClusterMessage) -> Void

    private let closures = NIOLockedValueBox<[String: Deliver]>([:])

    func set(_ deliver: @escaping Deliver, for namespace: String) {
        closures.withLockedValue { $0[namespace] = deliver }
    }

    func deliver(_ message: ClusterMessage, namespace: String) {
        // Called outside the lock: the closure may publish, subscribe or take its own locks.
        let deliver = closures.withLockedValue { $0[namespace] }
        deliver?(message)
    }
}
