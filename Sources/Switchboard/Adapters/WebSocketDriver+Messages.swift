import Logging
import NIOConcurrencyHelpers
import NIOWebSocket
import SocketIO
public import SocketIOProtocol

extension WebSocketDriver {
    /// Sends an `event` envelope; returns once it is handed to the network.
    /// - Throws: ``DriverError/notConnected`` when not open (nothing written).
    public func send(_ event: String, _ payload: JSONValue) async throws {
        guard let channel = inner.withLockedValue({ $0.machine.canSend ? $0.channel : nil }) else {
            throw DriverError.notConnected
        }
        channel.send(.text(Envelope.event(name: event, data: payload).text))
    }

    /// Sends a `request` envelope and waits for the `reply` with its id, at most
    /// ``Options/requestTimeout``.
    public func request(_ event: String, _ payload: JSONValue) async throws -> Response {
        try await request(event, payload, timeout: options.requestTimeout)
    }

    /// Sends a `request` envelope and waits for the `reply` with its id, at most `timeout` on
    /// ``Options/clock``.
    /// - Throws: ``WebSocketDriverError/notOpen``, ``WebSocketDriverError/requestTimedOut(event:after:)``,
    ///   ``WebSocketDriverError/serverError(event:message:)``, ``WebSocketDriverError/closed(reason:)``,
    ///   `CancellationError`.
    public func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
        let requestID = NIOLockedValueBox<Int?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                let started = inner.withLockedValue { inner -> (Int, WebSocketClientChannel)? in
                    guard case .send(let id) = inner.machine.request(), let channel = inner.channel else { return nil }
                    inner.requests[id] = PendingRequest(event: event, continuation: continuation, timer: nil)
                    return (id, channel)
                }
                guard let started else {
                    continuation.resume(throwing: WebSocketDriverError.notOpen)
                    return
                }
                let (id, channel) = started
                requestID.withLockedValue { $0 = id }
                channel.send(.text(Envelope.request(name: event, data: payload, id: id).text))
                let clock = options.clock
                let timer = Task { [weak self] in
                    do {
                        try await clock.sleep(for: timeout)
                    } catch {
                        return
                    }
                    self?.settle(id) { .failure(WebSocketDriverError.requestTimedOut(event: $0, after: timeout)) }
                }
                let stillWaiting = inner.withLockedValue { inner in
                    guard inner.requests[id] != nil else { return false }
                    inner.requests[id]?.timer = timer
                    return true
                }
                if !stillWaiting { timer.cancel() }
                if Task.isCancelled { settle(id) { _ in .failure(CancellationError()) } }
            }
        } onCancel: {
            if let id = requestID.withLockedValue({ $0 }) { settle(id) { _ in .failure(CancellationError()) } }
        }
    }

    /// Resumes request `id` with `result` (given the request's event name), if it still waits.
    private func settle(_ id: Int, _ result: (String) -> Result<Response, any Error>) {
        let pending = inner.withLockedValue { inner in
            inner.machine.settleRequest(id: id) ? inner.requests.removeValue(forKey: id) : nil
        }
        guard let pending else { return }
        pending.timer?.cancel()
        pending.continuation.resume(with: result(pending.event))
    }

    // MARK: - Inbound

    /// One message from connection `generation`.
    func receive(_ message: WebSocketMessage, from generation: Int) {
        let current = inner.withLockedValue { inner in
            inner.machine.accepts(messageFrom: generation) ? (inner.channel, inner.onEvent) : (nil, nil)
        }
        guard let channel = current.0 else { return }
        let envelope: Envelope
        do {
            envelope = try Envelope(message)
        } catch {
            breakConnection(channel, generation: generation, error: error)
            return
        }
        switch envelope {
        case .event(let name, let data, _):
            current.1?(.event(name, data))
        case .request(let name, let data, let id, _):
            let reply = DriverReply(
                send: { [weak self] values in
                    guard let self, self.inner.withLockedValue({ $0.machine.accepts(messageFrom: generation) }) else { return false }
                    channel.send(.text(Envelope.reply(id: id, data: values).text))
                    return true
                },
                decline: { message in channel.send(.text(Envelope.error(id: id, message: message).text)) }
            )
            current.1?(.request(name, data, reply))
        case .reply(let id, let data):
            settle(id) { _ in .success(Response(values: data)) }
        case .error(let id?, let message):
            settle(id) { .failure(WebSocketDriverError.serverError(event: $0, message: message)) }
        case .error(nil, let message):
            logger.warning("the server rejected a message", metadata: ["switchboard.error": "\(message)"])
        case .ack(let seq):
            logger.trace("ack", metadata: ["switchboard.seq": "\(seq)"])
        }
    }

    /// The server broke the envelope protocol: close with 1002 (1003 for binary data), report it.
    private func breakConnection(_ channel: WebSocketClientChannel, generation: Int, error: EnvelopeError) {
        let reason = "the server broke the protocol: \(error)"
        logger.warning("closing the WebSocket", metadata: ["switchboard.reason": "\(reason)"])
        ended(generation, reason: reason, openError: .closed(reason: reason))
        channel.close(code: error == .binaryMessage ? .unacceptableData : .protocolError)
    }
}
