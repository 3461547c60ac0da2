import Logging
import NIOConcurrencyHelpers
public import SocketIOProtocol

extension DriverConnection {
    public func events(named event: String) -> AsyncStream<JSONValue> {
        let (stream, continuation) = AsyncStream<JSONValue>.makeStream()
        let id = inner.withLockedValue { inner -> UInt64? in
            do throws(ConnectionError) {
                try inner.machine.subscribe()
            } catch {
                return nil
            }
            let id = inner.makeID()
            inner.subscribers[event, default: [:]][id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()  // released: nothing will ever arrive
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.inner.withLockedValue { inner in
                inner.subscribers[event]?.removeValue(forKey: id)
                if inner.subscribers[event]?.isEmpty == true { inner.subscribers.removeValue(forKey: event) }
            }
        }
        return stream
    }

    public func stateChanges() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream<ConnectionState>.makeStream()
        let id = inner.withLockedValue { inner -> UInt64? in
            continuation.yield(inner.machine.connectionState)
            if case .released = inner.machine.state { return nil }
            let id = inner.makeID()
            inner.stateObservers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.inner.withLockedValue { $0.stateObservers.removeValue(forKey: id) }
        }
        return stream
    }

    /// What the driver of `attempt` reports. Reports of an attempt that is no longer current
    /// (the app disconnected meanwhile) are ignored.
    func driverEvent(_ event: DriverEvent, attempt: ConnectionStateMachine.Attempt) {
        switch event {
        case .event(let name, let payload):
            // Yielded under the lock so events reach each subscriber in the order they came.
            inner.withLockedValue { inner in
                guard inner.machine.currentAttempt == attempt, let streams = inner.subscribers[name] else { return }
                for stream in streams.values { stream.yield(payload) }
            }
        case .closed(let reason):
            let lost = transition { inner -> [PendingRequest]? in
                switch inner.machine.transportClosed(attempt) {
                case .stale: return nil
                case .moved: return inner.takeInFlightRequests()
                }
            }
            guard let lost else { return }
            logger.info("the transport closed", metadata: [
                "switchboard.reason": "\(reason)", "switchboard.lostRequests": "\(lost.count)",
            ])
            for request in lost { request.fail(.connectionLost(reason)) }
        }
    }
}
