import Logging
import NIOConcurrencyHelpers
import NIOWebSocket
public import SocketIOProtocol
import SwitchboardCore
import WebSocketClient

extension WebSocketDriver {
    /// Sends an `event` envelope; returns once it is handed to the network.
    /// - Throws: ``DriverError/notConnected`` when not open (nothing written).
    public func send(_ event: String, _ payload: JSONValue) async throws {
        guard sendNow(.event(name: event, data: payload)) else { throw DriverError.notConnected }
    }

    /// Writes `envelope` now; `false` when not open (nothing written).
    @discardableResult
    func sendNow(_ envelope: Envelope) -> Bool {
        guard let channel = inner.withLockedValue({ $0.machine.canSend ? $0.channel : nil }) else { return false }
        channel.send(.text(envelope.text))
        return true
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
        let deadline = PendingReplies<Int, Response, RequestFailure>.Deadline(after: timeout, on: timeline) { [weak self] id in
            _ = self?.forgetRequest(id)
            return .timedOut
        }
        return try await requests.call(
            deadline: deadline, cancelled: .cancelled, failure: { $0.error(event: event, timeout: timeout) },
            cancel: { [weak self] id in self?.settle(id, .failure(.cancelled)) }
        ) { register in
            guard begin(event, payload, registering: register) != nil else { throw WebSocketDriverError.notOpen }
        }
    }

    /// Writes a `request` envelope, its id given to `registering` first; its id, or `nil` when
    /// the driver is not open (nothing written, nothing registered).
    private func begin(_ event: String, _ payload: JSONValue, registering: (Int) -> Void) -> Int? {
        // Registered under the lock, so a close that takes the ids fails this one too.
        let started = inner.withLockedValue { inner -> (Int, WebSocketClientChannel)? in
            guard case .send(let id) = inner.machine.request(), let channel = inner.channel else { return nil }
            registering(id)
            return (id, channel)
        }
        guard let (id, channel) = started else { return nil }
        channel.send(.text(Envelope.request(name: event, data: payload, id: id).text))
        return id
    }

    /// Answers request `id` with `result`, if it still waits.
    private func settle(_ id: Int, _ result: Result<Response, RequestFailure>) {
        guard forgetRequest(id) else { return }
        requests.settle(id, with: result)
    }

    /// The machine stops counting request `id`; `false` when it already had.
    private func forgetRequest(_ id: Int) -> Bool {
        inner.withLockedValue { $0.machine.settleRequest(id: id) }
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
            envelope = try Envelope(webSocketText: message.textPayload)
        } catch {
            breakConnection(channel, generation: generation, error: error)
            return
        }
        if let envelopeTap {
            envelopeTap(envelope)
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
        case .reply(let id, let data, _):
            settle(id, .success(Response(values: data)))
        case .error(let id?, let message):
            settle(id, .failure(.server(message)))
        case .error(nil, let message):
            logger.warning("the server rejected a message", metadata: ["switchboard.error": "\(message)"])
        case .ack(let seq):
            logger.trace("ack", metadata: ["switchboard.seq": "\(seq)"])
        case .resume, .resumed:
            // Reliable channels are the failover connection's (issue 16); a plain driver has none.
            logger.debug("ignoring a channel envelope", metadata: ["switchboard.type": "\(envelope.type)"])
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

/// Why a request ended without its reply, before the event name and timeout are put in.
enum RequestFailure: Error {
    case timedOut
    case server(String)
    case closed(String)
    case cancelled

    func error(event: String, timeout: Duration) -> any Error {
        switch self {
        case .timedOut: WebSocketDriverError.requestTimedOut(event: event, after: timeout)
        case .server(let message): WebSocketDriverError.serverError(event: event, message: message)
        case .closed(let reason): WebSocketDriverError.closed(reason: reason)
        case .cancelled: CancellationError()
        }
    }
}

extension WebSocketDriver: CallbackRequestDriver {
    /// `request` without a deadline or task of its own: its connection keeps the deadline.
    func startRequest(
        _ event: String, _ payload: JSONValue, timeout: Duration,
        complete: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> @Sendable () -> Void {
        let id = begin(event, payload) { id in
            requests.add(id) { complete($0.mapError { $0.error(event: event, timeout: timeout) }) }
        }
        guard let id else {
            // Nothing written: the connection keeps the request for its next connection.
            complete(.failure(DriverError.notConnected))
            return {}
        }
        return { [weak self] in self?.settle(id, .failure(.cancelled)) }
    }
}
