import Logging

/// What an ``EngineSession`` send leaves to do once the caller's lock is released: start the
/// WebSocket's writing, answer the held GET, or close the session (see
/// ``EngineSession/enqueue(_:)``).
struct SendFollowUp: Sendable {
    enum Work: Sendable {
        case flush(WebSocketWriter.Flush)
        case respond(EngineSession.Waiter, [EngineFrame])
        case close(EngineSession, EngineSession.Machine.CloseEffects)
    }

    let work: Work

    func perform() {
        switch work {
        case .flush(let flush):
            flush.start()
        case .respond(let waiter, let frames):
            waiter.resume(returning: .frames(frames))
        case .close(let session, let effects):
            session.logger.debug("closing: the client does not drain its queue")
            Task { session.perform(effects) }
        }
    }
}
