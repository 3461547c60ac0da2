import AsyncHTTPClient
import DequeModule
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import SocketIOProtocol

/// Engine.IO over HTTP long-polling, on AsyncHTTPClient.
///
/// One GET at a time receives (the server holds it until it has packets); one POST at a time
/// sends. A POST carries at most ``maxPacketsPerRequest`` packets (python servers drop bigger
/// batches whole) and stays under the server's `maxPayload`. The transport learns its `sid`
/// and `maxPayload` from the `open` packet of its first GET.
final class PollingTransport: EngineTransport {
    let name = "polling"

    struct Options: Sendable {
        var endpoint: EngineEndpoint
        var version: EngineIOVersion
        var headers: [(String, String)]
        var maxMessageSize: Int
        var maxPacketsPerRequest: Int
        var timestampRequests: Bool
        var client: HTTPClient
        /// A session to join (`nil` opens a new one with a handshake).
        var sid: String?
    }

    private struct State {
        var sid: String?
        var maxPayload = 1_000_000
        var outbox = Deque<EnginePacket>()
        /// Positions in `outbox` a POST must not span: the packets from there on go in a later POST
        /// than those before (POSTs are sequential, each answered after the server read it).
        var fences = Deque<Int>()
        var posting = false
        var getTask: Task<Void, Never>?
        var paused = false
        var polling = false
        var pauseWaiter: (@Sendable () -> Void)?
        var closing = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var finished = false
    }

    let options: Options
    private let reporter: TransportReporter
    private let state: NIOLockedValueBox<State>

    init(options: Options, handler: @escaping @Sendable (TransportEvent) -> Void) {
        self.options = options
        self.reporter = TransportReporter(handler)
        self.state = NIOLockedValueBox(State(sid: options.sid))
        startPolling()
    }

    // MARK: - EngineTransport

    func send(_ packets: [EnginePacket]) {
        let start = state.withLockedValue { state -> Bool in
            guard !state.finished else { return false }
            state.outbox.append(contentsOf: packets)
            return startPostIfIdle(&state)
        }
        if start { postLoop() }
    }

    func sendAfterPeerRead(_ packets: [EnginePacket]) {
        let start = state.withLockedValue { state -> Bool in
            guard !state.finished else { return false }
            if !state.outbox.isEmpty { state.fences.append(state.outbox.count) }
            state.outbox.append(contentsOf: packets)
            return startPostIfIdle(&state)
        }
        if start { postLoop() }
    }

    func close() {
        let (task, finishNow, post) = state.withLockedValue { state -> (Task<Void, Never>?, Bool, Bool) in
            state.closing = true
            let task = state.getTask
            state.getTask = nil
            if state.sid == nil || state.finished { state.outbox.removeAll(); state.fences.removeAll() }
            // The last packets (a `close`) still go out, even while paused for an upgrade.
            if !state.posting && !state.outbox.isEmpty {
                state.posting = true
                return (task, false, true)
            }
            return (task, !state.posting && state.outbox.isEmpty, false)
        }
        task?.cancel()
        if post { postLoop() }
        if finishNow { finish() }
    }

    /// Carries on after a pause whose upgrade did not happen.
    func resume() {
        let (get, post) = state.withLockedValue { state -> (Bool, Bool) in
            guard state.paused, !state.closing, !state.finished else { return (false, false) }
            state.paused = false
            state.pauseWaiter = nil
            return (!state.polling, startPostIfIdle(&state))
        }
        if get { startPolling() }
        if post { postLoop() }
    }

    func waitUntilClosed() async {
        await withCheckedContinuation { continuation in
            let done = state.withLockedValue { state in
                if state.finished { return true }
                state.closeWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Stops issuing requests; calls `done` once the GET and POST in flight have completed
    /// (the upgrade's "pause polling" step).
    func pause(then done: @escaping @Sendable () -> Void) {
        let idle = state.withLockedValue { state -> Bool in
            state.paused = true
            if !state.polling && !state.posting { return true }
            state.pauseWaiter = done
            return false
        }
        if idle { done() }
    }

    /// Drops the transport without a word to the server (after an upgrade replaced it).
    func discard() {
        let task = state.withLockedValue { state -> Task<Void, Never>? in
            state.closing = true
            state.outbox.removeAll()
            state.fences.removeAll()
            defer { state.getTask = nil }
            return state.getTask
        }
        task?.cancel()
        finish()
    }

    /// Packets queued but not yet posted (handed to the new transport after an upgrade).
    func takeUnsent() -> [EnginePacket] {
        state.withLockedValue { state in
            defer { state.outbox.removeAll(); state.fences.removeAll() }
            return state.outbox.isEmpty ? [] : Array(state.outbox)
        }
    }

    // MARK: - Receiving

    private func startPolling() {
        let task = Task { [self] in await pollLoop() }
        state.withLockedValue { $0.getTask = task }
    }

    private func pollLoop() async {
        while true {
            let sid: String?? = state.withLockedValue { state in
                guard !state.closing, !state.paused, !state.finished else {
                    state.polling = false
                    return .none
                }
                state.polling = true
                return .some(state.sid)
            }
            guard case .some(let sid) = sid else { break }
            do {
                let body = try await request(method: .GET, sid: sid, body: nil)
                try Task.checkCancellation()
                try receive(body, handshake: sid == nil)
            } catch is CancellationError {
                break
            } catch let error as PollingFailure {
                state.withLockedValue { $0.polling = false }
                reporter.end(error.reason)
                break
            } catch {
                state.withLockedValue { $0.polling = false }
                if !state.withLockedValue({ $0.closing }) {
                    reporter.end(.transportError("polling GET failed: \(error)"))
                }
                break
            }
        }
        state.withLockedValue { $0.polling = false }
        notifyPausedIfIdle()
    }

    private func receive(_ body: String, handshake: Bool) throws {
        if handshake, options.version == .v4, Self.looksLikeV3Payload(body) {
            throw PollingFailure(.unsupportedVersion(tried: .v4, serverSpeaks: .v3,
                                                     detail: "the handshake came back in the v3 payload format"))
        }
        let packets: [EnginePacket]
        do {
            packets = try PollingPayload.decode(body, version: options.version)
        } catch {
            throw PollingFailure(.parseError(error.description))
        }
        for packet in packets {
            if case .open(let json) = packet, let handshake = try? EngineHandshake(json: json) {
                state.withLockedValue { state in
                    state.sid = handshake.sid
                    if let maxPayload = handshake.maxPayload { state.maxPayload = maxPayload }
                }
            }
            reporter.packet(packet)
            if case .close = packet {
                state.withLockedValue { $0.closing = true }
                return
            }
        }
    }

    /// A v3 server answers any handshake in its own format: `<digits>:0{…}`.
    static func looksLikeV3Payload(_ body: String) -> Bool {
        guard let colon = body.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let prefix = body.utf8[body.utf8.startIndex..<colon]
        return !prefix.isEmpty && prefix.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    // MARK: - Sending

    private func startPostIfIdle(_ state: inout State) -> Bool {
        guard !state.posting, !state.paused, state.sid != nil, !state.outbox.isEmpty else { return false }
        state.posting = true
        return true
    }

    private func postLoop() {
        Task { [self] in
            while true {
                let next: (String, String)? = state.withLockedValue { state in
                    guard !state.outbox.isEmpty, !state.finished, let sid = state.sid,
                          !state.paused || state.closing else {
                        state.posting = false
                        return nil
                    }
                    let limit = min(options.maxPacketsPerRequest, state.fences.first ?? .max)
                    let batch = Self.takeBatch(from: &state.outbox, maxPackets: limit,
                                               maxBytes: state.maxPayload, version: options.version)
                    Self.advance(&state.fences, by: batch.count)
                    return (sid, PollingPayload.encode(batch, version: options.version))
                }
                guard let (sid, body) = next else { break }
                do {
                    _ = try await request(method: .POST, sid: sid, body: body)
                } catch {
                    state.withLockedValue { state in
                        state.posting = false
                        // Nothing more can be posted: a closing transport finishes anyway.
                        if state.closing { state.outbox.removeAll(); state.fences.removeAll() }
                    }
                    reporter.end((error as? PollingFailure)?.reason ?? .transportError("polling POST failed: \(error)"))
                    break
                }
            }
            notifyPausedIfIdle()
            let finishNow = state.withLockedValue { $0.closing && !$0.posting && $0.outbox.isEmpty }
            if finishNow { finish() }
        }
    }

    /// Takes packets for one POST: at most `maxPackets`, and at most `maxBytes` of body (at least one).
    static func takeBatch(from outbox: inout Deque<EnginePacket>, maxPackets: Int, maxBytes: Int,
                          version: EngineIOVersion) -> [EnginePacket] {
        var batch: [EnginePacket] = []
        var bytes = 0
        while let packet = outbox.first, batch.count < maxPackets {
            let size = packet.encodedText(version: version).utf8.count + (version == .v3 ? 8 : 1)
            if !batch.isEmpty && bytes + size > maxBytes { break }
            batch.append(outbox.removeFirst())
            bytes += size
        }
        return batch
    }

    /// Moves the fences after `count` packets left the front of the outbox.
    static func advance(_ fences: inout Deque<Int>, by count: Int) {
        for index in fences.indices { fences[index] -= count }
        while let first = fences.first, first <= 0 { fences.removeFirst() }
    }

    private func notifyPausedIfIdle() {
        let waiter = state.withLockedValue { state -> (@Sendable () -> Void)? in
            guard state.paused, !state.polling, !state.posting else { return nil }
            defer { state.pauseWaiter = nil }
            return state.pauseWaiter
        }
        waiter?()
    }

    private func finish() {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            guard !state.finished else { return [] }
            state.finished = true
            defer { state.closeWaiters = [] }
            return state.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
