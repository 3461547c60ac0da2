import SwitchboardCore
import Logging
public import SocketIOProtocol

extension DriverConnection {
    /// The payloads of every `event` the server sends from now on, until the connection is released.
    public func events(named event: String) -> AsyncStream<JSONValue> {
        observerStream(of: self, \.inner, \.subscribers[event])
    }

    /// The server's requests for `event` (events that ask for an answer), until the connection
    /// is released. Each is also delivered to ``events(named:)`` as a plain event. A request
    /// nobody listens for here is declined where the transport can say so (the plain WebSocket
    /// envelope answers with an error); over Socket.IO the server's ack times out.
    public func requests(named event: String) -> AsyncStream<IncomingRequest> {
        observerStream(of: self, \.inner, \.requestSubscribers[event])
    }

    /// The current state, then every change, until the connection is released.
    public func stateChanges() -> AsyncStream<ConnectionState> {
        observerStream(of: self, \.inner, \.stateObservers) { $0.connectionState }
    }

    /// What the driver of `attempt` reports. Reports of an attempt that is no longer current
    /// (the app disconnected meanwhile) are ignored.
    func driverEvent(_ event: DriverEvent, attempt: ConnectionStateMachine.Attempt) {
        switch event {
        case .event(let name, let payload):
            // Yielded in the transition so events reach each subscriber in the order they came.
            transition { $0.deliver(name, payload, from: attempt) }
        case .request(let name, let payload, let reply):
            let request = IncomingRequest(event: name, payload: payload, reply: reply) { [weak self] in
                self?.read { $0.isCurrent(attempt) && $0.connectionState == .connected } ?? false
            }
            if !transition({ $0.deliver(request, from: attempt) }) { request.decline() }
        case .closed(let reason):
            guard let lost = transition({ $0.transportClosed(attempt, reason: reason) }) else { return }
            logger.info("the transport closed", metadata: [
                "switchboard.reason": "\(reason)", "switchboard.lostRequests": "\(lost.count)",
            ])
            fail(lost, with: .connectionLost(reason))
        }
    }
}
