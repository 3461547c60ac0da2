import SwitchboardCore

extension LiveStatus where State == SocketStatus {
    /// A model following `socket` (its status, whether the last connect recovered the session,
    /// the transport) and its manager (reconnection attempts, errors), for SwiftUI. It holds
    /// neither, and stops following when the manager is closed or they are released.
    ///
    /// ```swift
    /// let status = LiveStatus(following: socket)   // on the main actor
    /// ```
    public convenience init(following socket: Socket) {
        let manager = socket.io
        let statuses = socket.statusChanges
        let events = manager.events
        self.init(
            state: socket.status, recovered: socket.connected ? socket.recovered : nil, lastError: nil,
            transport: manager.transport?.rawValue
        ) { [weak socket, weak manager] continuation in
            let eventRelay = Task { [weak socket, weak manager] in
                for await event in events {
                    switch event {
                    // Read late, after the socket connected again: the count is over, the error
                    // was an earlier attempt's.
                    case .reconnectAttempt(let attempt):
                        if socket?.connected != true { continuation.yield(.attempt(attempt)) }
                    case .reconnectError(let message), .error(let message):
                        if socket?.connected != true { continuation.yield(.error(message)) }
                    case .reconnectFailed: continuation.yield(.error("reconnection failed"))
                    case .open, .upgrade: continuation.yield(.transport(manager?.transport?.rawValue))
                    case .close: continuation.yield(.transport(nil))
                    case .ping, .reconnect: break
                    }
                }
            }
            for await status in statuses {
                // What the socket says about the status is read before the status is shown.
                switch status {
                case .connected:
                    continuation.yield(.connected(recovered: socket?.recovered))
                    continuation.yield(.transport(manager?.transport?.rawValue))
                case .disconnected(let reason):
                    if reason.isRecoverable { continuation.yield(.error(reason.description)) }
                case .notConnected, .connecting:
                    break
                }
                continuation.yield(.state(status))
            }
            eventRelay.cancel()
        }
    }
}
