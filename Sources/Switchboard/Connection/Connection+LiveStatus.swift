import SwitchboardCore

extension LiveStatus where State == ConnectionState {
    /// A model following `connection` for SwiftUI: its state, whether the last connect recovered
    /// the session, the last error, reconnection attempts since it was last connected, and the
    /// transport in use. It holds the connection weakly and stops following when it is released.
    ///
    /// ```swift
    /// let status = LiveStatus(following: connection)   // on the main actor
    /// ```
    public convenience init(following connection: any Connection) {
        let states = connection.stateChanges()
        let transports = connection.transportChanges()
        self.init(
            state: connection.state, recovered: connection.recovered, lastError: connection.lastError,
            transport: connection.transport
        ) { [weak connection] continuation in
            let transportRelay = Task {
                for await transport in transports { continuation.yield(.transport(transport)) }
            }
            var attempts = 0
            for await state in states {
                // What the connection says about the state is read before the state is shown.
                switch state {
                case .connected:
                    attempts = 0
                    continuation.yield(.connected(recovered: connection?.recovered))
                case .reconnecting:
                    attempts += 1
                    continuation.yield(.attempt(attempts))
                case .disconnected:
                    continuation.yield(.error(connection?.lastError))
                case .created, .released:
                    break
                }
                continuation.yield(.state(state))
            }
            transportRelay.cancel()
        }
    }
}
