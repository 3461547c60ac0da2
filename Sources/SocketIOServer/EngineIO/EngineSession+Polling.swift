import Logging
import NIOCore
import SocketIOProtocol

extension EngineSession {
    /// Answers a GET: at once with what is queued, or once something is (a ping at the latest).
    /// A GET held on `connection` that closes first closes the session.
    func poll(on connection: (any Channel)? = nil) async -> PollOutcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: Waiter) in
                let action = inner(poll: waiter)
                switch action {
                case .respond(let frames):
                    waiter.resume(returning: .frames(frames))
                case .wait(let held):
                    guard let connection else { return }
                    environment.heldPolls.watch(connection) { [weak self] in
                        guard let self, let effects = innerPollConnectionClosed(held: held) else { return }
                        logger.debug("closing: the connection of a held GET closed")
                        perform(effects)
                    }
                case .respondAndFinish(let frames):
                    waiter.resume(returning: .frames(frames))
                    finishLinger()
                case .duplicate(let effects):
                    logger.debug("closing: overlapping GET requests")
                    waiter.resume(returning: .rejected)
                    perform(effects)
                case .reject:
                    waiter.resume(returning: .rejected)
                }
            }
        } onCancel: {
            // The server is stopping (request tasks are cancelled): release the GET.
            self.close(.serverShuttingDown)
        }
    }

    /// What a POST is answered with.
    enum PostOutcome: Sendable {
        /// 200 `ok`.
        case accepted
        /// The session does not take polling requests (upgraded, closed, duplicate): 400.
        case rejected
        /// The body is not a v4 payload: 400; the session is closed.
        case malformed
    }

    /// Handles a POST body: every packet in order, messages to the Socket.IO layer.
    func post(_ body: ByteBuffer) async -> PostOutcome {
        switch innerBeginPost() {
        case .proceed:
            break
        case .duplicate(let effects):
            logger.debug("closing: overlapping POST requests")
            perform(effects)
            return .rejected
        case .reject:
            return .rejected
        }
        defer { innerEndPost() }
        let packets: [EnginePacket]
        do {
            packets = try EngineRoute.packets(inPostBody: body.readableBytesView, version: version)
        } catch {
            logger.debug("closing: malformed POST body", metadata: ["socketio.error": "\(error)"])
            close(.parseError(error.description))
            return .malformed
        }
        for packet in packets {
            switch packet {
            case .message(let text):
                guard let client = messageTarget(from: nil) else { return .accepted }
                await client.receive(text: Substring(text))
            case .binaryMessage(let data):
                guard let client = messageTarget(from: nil) else { return .accepted }
                await client.receive(binary: data)
            case .open, .close, .ping, .pong, .upgrade, .noop:
                control(packet, from: nil)
            }
        }
        return .accepted
    }
}

extension SocketIOServer {
    /// Whether session `sid` holds a GET now (for tests that must order a request after it).
    func holdsPoll(sid: String) -> Bool {
        core.sessions[sid]?.holdsPoll ?? false
    }
}

