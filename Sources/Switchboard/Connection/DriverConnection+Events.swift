import Logging
import NIOConcurrencyHelpers
public import SocketIOProtocol

extension DriverConnection {
    public func events(named event: String) -> AsyncStream<JSONValue> {
        subscribe(to: event, in: \.subscribers)
    }

    /// The server's requests for `event` (events that ask for an answer), until the connection
    /// is released. Each is also delivered to ``events(named:)`` as a plain event. A request
    /// nobody listens for here is declined where the transport can say so (the plain WebSocket
    /// envelope answers with an error); over Socket.IO the server's ack times out.
    public func requests(named event: String) -> AsyncStream<IncomingRequest> {
        subscribe(to: event, in: \.requestSubscribers)
    }

    /// A stream registered under `event` in one of the subscriber tables; finished at once when
    /// the connection is released, removed from the table when its consumer stops.
    private func subscribe<Element: Sendable>(
        to event: String,
        in table: any WritableKeyPath<Inner, [String: [UInt64: AsyncStream<Element>.Continuation]]> & Sendable
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let id = inner.withLockedValue { inner -> UInt64? in
            do throws(ConnectionError) {
                try inner.machine.subscribe()
            } catch {
                return nil
            }
            let id = inner.makeID()
            inner[keyPath: table][event, default: [:]][id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()  // released: nothing will ever arrive
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.inner.withLockedValue { inner in
                inner[keyPath: table][event]?.removeValue(forKey: id)
                if inner[keyPath: table][event]?.isEmpty == true { inner[keyPath: table].removeValue(forKey: event) }
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
        case .request(let name, let payload, let reply):
            let request = IncomingRequest(event: name, payload: payload, reply: reply) { [weak self] in
                guard let self else { return false }
                return self.inner.withLockedValue { $0.machine.currentAttempt == attempt && $0.machine.connectionState == .connected }
            }
            let heard = inner.withLockedValue { inner -> Bool in
                guard inner.machine.currentAttempt == attempt else { return true }
                for stream in inner.subscribers[name]?.values ?? [:].values { stream.yield(payload) }
                guard let streams = inner.requestSubscribers[name], !streams.isEmpty else { return false }
                for stream in streams.values { stream.yield(request) }
                return true
            }
            if !heard { request.decline() }
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
