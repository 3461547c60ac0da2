import SwitchboardCore
import Logging
import NIOConcurrencyHelpers
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
        let result = transition { inner -> Result<Disconnecting, ConnectionError> in
            do throws(ConnectionError) {
                switch try inner.machine.disconnect() {
                case .none:
                    return .success(Disconnecting(waiters: [], requests: [:], close: nil))
                case .close(let abandoned):
                    let waiters = abandoned.map { inner.takeConnectWaiters(for: $0) } ?? []
                    if let open = inner.openTask, open.attempt == abandoned { open.task.cancel() }
                    inner.openTask = nil
                    return .success(Disconnecting(
                        waiters: waiters, requests: inner.takeInFlightRequests(),
                        close: chainClose(&inner, keepingSession: keepingSession)
                    ))
                }
            } catch {
                return .failure(error)
            }
        }
        let disconnecting = try result.get()
        for waiter in disconnecting.waiters {
            waiter.resume(throwing: ConnectionError.connectFailed("disconnected before the connection opened"))
        }
        fail(disconnecting.requests, with: .connectionLost(keepingSession ? "the app suspended the connection" : "the app disconnected"))
        await disconnecting.close?.value
    }

    /// Releases the connection for good: only from `disconnected`. Every queued command fails
    /// with ``ConnectionError/released``; every event and state sequence ends.
    public func release() async throws {
        let result = transition { inner -> Result<Releasing, ConnectionError> in
            do throws(ConnectionError) {
                try inner.machine.release()
            } catch {
                return .failure(error)
            }
            let queued = inner.drainQueue()
            let requests = inner.requests
            inner.requests = [:]
            let streams = inner.subscribers.takeAll()
            let requestStreams = inner.requestSubscribers.takeAll()
            let observers = inner.stateObservers.takeAll()
            let queueObservers = inner.queueObservers.takeAll()
            return .success(Releasing(
                queued: queued, requests: requests, streams: streams, requestStreams: requestStreams, observers: observers,
                queueObservers: queueObservers, close: chainClose(&inner)
            ))
        }
        let releasing = try result.get()
        for command in releasing.queued {
            if case .send(_, _, let continuation) = command { continuation.resume(throwing: ConnectionError.released) }
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
        await releasing.close?.value
    }

    /// Closes the driver after every earlier driver operation finished.
    private func chainClose(_ inner: inout Inner, keepingSession: Bool = false) -> Task<Void, Never> {
        let previous = inner.driverTail
        let driver = self.driver
        let task = Task {
            await previous?.value
            if keepingSession {
                await driver.suspend()
            } else {
                await driver.close()
            }
        }
        inner.driverTail = task
        return task
    }

    private struct Disconnecting {
        var waiters: [CheckedContinuation<Void, any Error>]
        var requests: [UInt64: PendingRequest]
        var close: Task<Void, Never>?
    }

    private struct Releasing {
        var queued: [QueuedCommand]
        var requests: [UInt64: PendingRequest]
        var streams: [ObserverSet<JSONValue>.Observer]
        var requestStreams: [ObserverSet<IncomingRequest>.Observer]
        var observers: [ObserverSet<ConnectionState>.Observer]
        var queueObservers: [ObserverSet<Int>.Observer]
        var close: Task<Void, Never>?
    }
}
