import SocketIOProtocol
import SwitchboardCore

extension ReliableChannels {
    /// Numbers `envelope` on channel `id` and sends it on the transport carrying the channel, if
    /// any (otherwise the next resume sends it).
    func send(_ envelope: Envelope, on id: String) throws(ReliableChannelError) {
        let queued = transition { machine in
            Result { () throws(ReliableChannelError) in try machine.send(envelope, on: id) }
        }
        drain(try queued.get())
    }

    /// ``send(_:on:)``, waiting up to `timeout` for room when the window is full (the client's
    /// acknowledgements make it). A cancelled task stops waiting at once: `windowFull`, nothing
    /// sent.
    func send(_ envelope: Envelope, on id: String, waitingUpTo timeout: Duration) async throws(ReliableChannelError) {
        let deadline = timeline.now() + timeout
        while true {
            do throws(ReliableChannelError) {
                try send(envelope, on: id)
                return
            } catch .windowFull(let window) {
                let remaining = deadline - timeline.now()
                guard remaining > .zero, !Task.isCancelled else { throw .windowFull(window: window) }
                await waitForRoom(on: id, upTo: remaining, window: window)
            }
        }
    }

    /// Sends a numbered request on channel `id` and waits up to `timeout` for the client's reply
    /// (which, numbered too, survives transport switches).
    func request(_ event: String, _ data: JSONValue, on id: String, timeout: Duration) async throws(ChannelRequestError) -> [JSONValue] {
        let requestID = transition { $0.nextRequest() }
        let key = RequestKey(channel: id, id: requestID)
        let deadline = PendingReplies<RequestKey, [JSONValue], ChannelRequestError>.Deadline(after: timeout, on: timeline) { _ in
            .timedOut(event: event, after: timeout)
        }
        let result: Result<[JSONValue], ChannelRequestError> = await withCheckedContinuation { continuation in
            requests.add(key, deadline: deadline) { continuation.resume(returning: $0) }
            do throws(ReliableChannelError) {
                try send(.request(name: event, data: data, id: requestID), on: id)
            } catch {
                requests.settle(key, with: .failure(.notSent(error)))
            }
        }
        return try result.get()
    }

    /// Returns when channel `id` has room in its window, it is gone, `timeout` passed, or the
    /// task was cancelled.
    private func waitForRoom(on id: String, upTo timeout: Duration, window: Int) async {
        let token = transition { $0.reserveRoomWait() }
        let deadline = PendingReplies<Int, Void, ReliableChannelError>.Deadline(after: timeout, on: timeline) { [weak self] token in
            self?.transition { $0.roomWaitEnded(token, on: id) }
            return .windowFull(window: window)
        }
        let cancelled: @Sendable () -> Void = { [weak self] in
            self?.transition { $0.roomWaitEnded(token, on: id) }
            self?.roomWaits.settle(token, with: .failure(.windowFull(window: window)))
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Registered before the machine hears of it, so an acknowledgement right after the
                // check below wakes it.
                roomWaits.add(token, deadline: deadline) { _ in continuation.resume() }
                // Checked in the transition acknowledgements take: none slips in between.
                if !transition({ $0.waitForRoom(on: id, token: token) }) {
                    roomWaits.settle(token, with: .success(()))
                }
                // Cancelled before it was registered: the handler below found nothing to end.
                if Task.isCancelled { cancelled() }
            }
        } onCancel: {
            cancelled()
        }
    }

    func unacknowledgedCount(of id: String) -> Int {
        transition { $0.unacknowledgedCount(of: id) }
    }

    /// Every channel's state, one line each (for logs and tests that time out; never parsed).
    public var diagnostics: [String] {
        transition { $0.diagnostics }
    }
}
