import SwitchboardCore
import Logging
import SocketIOProtocol

extension DriverConnection {
    /// Closes the transport (``Connection/disconnect()``): the state becomes `disconnected`; queued commands wait.
    public func disconnect() async throws {
        try await disconnect(keepingSession: false)
    }

    /// Closes the transport as the app goes to the background, keeping the server's session for recovery where the driver can.
    public func suspend() async throws {
        try await disconnect(keepingSession: true)
    }

    private func disconnect(keepingSession: Bool) async throws {
        try await untilClosed { machine, done throws(ConnectionError) in
            try machine.disconnect(keepingSession: keepingSession, done: done)
        } then: { disconnecting, done in
            disconnecting.cancelOpen?.cancel()
            for waiter in disconnecting.waiters {
                waiter.resume(throwing: ConnectionError.connectFailed("disconnected before the connection opened"))
            }
            fail(disconnecting.lost, with: .connectionLost(keepingSession ? "the app suspended the connection" : "the app disconnected"))
            run(disconnecting.run)
            if !disconnecting.closing { done.resume() }
        }
    }

    /// Releases the connection for good: only from `disconnected`. Every queued command fails
    /// with ``ConnectionError/released``; every event and state sequence ends.
    public func release() async throws {
        try await untilClosed { machine, done throws(ConnectionError) in
            try machine.release(done: done)
        } then: { releasing, _ in
            for command in releasing.queued {
                if case .send(_, _, let waiter) = command { waiter.resume(throwing: ConnectionError.released) }
            }
            fail(releasing.requests, with: .released)
            for stream in releasing.streams { stream.finish() }
            for stream in releasing.requestStreams { stream.finish() }
            for observer in releasing.observers {
                observer.yield(.released)  // taken out of the observers before `transition` could tell them
                observer.finish()
            }
            for observer in releasing.queueObservers { observer.finish() }
            logger.debug("released", metadata: ["switchboard.failedCommands": "\(releasing.queued.count)"])
            run(releasing.run)
        }
    }

    /// Runs `event` (a disconnect or a release) with a waiter that hears when the driver closed,
    /// does what it returned (`then`, after the lock) and waits for the close. Throws, closing
    /// nothing, when the machine refuses the event.
    private func untilClosed<Action>(
        _ event: (inout Machine, CheckedContinuation<Void, Never>) throws(ConnectionError) -> Action,
        then: (Action, CheckedContinuation<Void, Never>) -> Void
    ) async throws {
        var refused: ConnectionError?
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let result = transition { machine in Result { () throws(ConnectionError) in try event(&machine, done) } }
            switch result {
            case .failure(let error):
                refused = error
                done.resume()
            case .success(let action):
                then(action, done)
            }
        }
        if let refused { throw refused }
    }
}
