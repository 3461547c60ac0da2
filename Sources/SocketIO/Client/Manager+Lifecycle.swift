extension Manager {
    /// The app is going to the background: after `grace` (on the configured clock) the
    /// connection closes cleanly, without leaving the namespaces, so a server with connection
    /// state recovery keeps each socket's session. Meanwhile and until ``resume()``, the sockets
    /// stay wanted: emits wait in their buffers, and no reconnection is attempted.
    ///
    /// A ``resume()`` within the grace keeps the connection as it is.
    public func suspend(after grace: Duration = .zero) {
        connection.suspend(after: grace)
    }

    /// The app is back: reconnects at once if ``suspend(after:)`` closed the connection (the
    /// sockets recover their sessions where the server allows, and send what they buffered).
    public func resume() {
        connection.resume()
    }

    /// Whether the manager is suspended (its grace over, the connection closed until resumed).
    public var isSuspended: Bool {
        transition { $0.machine.lifecycle == .suspended }
    }
}
