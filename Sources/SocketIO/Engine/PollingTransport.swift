import DequeModule
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import SocketIOProtocol
import WebSocketClient

/// Engine.IO over HTTP long-polling, on its own kept-alive HTTP/1.1 connections (``HTTP1ConnectionPool``).
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
        var client: HTTP1ConnectionPool
        /// Where the GET and POST loops run: the pool's loop, so a response resumes its loop
        /// on the thread that read it and the next request is written from there, no hop.
        var executor: EventLoopTaskExecutor
        /// A session to join (`nil` opens a new one with a handshake).
        var sid: String?
    }

    typealias Machine = PollingStateMachine<@Sendable () -> Void, CheckedContinuation<Void, Never>, Task<Void, Never>>

    let options: Options
    private let reporter: TransportReporter
    private let state: NIOLockedValueBox<Machine>

    init(options: Options, handler: @escaping @Sendable (TransportEvent) -> Void) {
        self.options = options
        self.reporter = TransportReporter(handler)
        self.state = NIOLockedValueBox(Machine(sid: options.sid))
    }

    /// One input to the machine, under the lock; what it returns is done after.
    private func transition<T>(_ input: (inout Machine) -> T) -> T {
        state.withLockedValue(input)
    }

    // MARK: - EngineTransport

    func start() {
        startPolling()
    }

    func enqueue(_ packets: [EnginePacket], afterPeerRead: Bool) -> TransportWrite? {
        transition({ $0.send(packets, fenced: afterPeerRead) }) ? .polling(self) : nil
    }

    /// Starts the POST loop that ``enqueue(_:afterPeerRead:)`` asked for.
    func startPosting() {
        postLoop()
    }

    func close() {
        let action = transition { $0.close() }
        action.cancelPoll?.cancel()
        if action.post { postLoop() }
        if let waiters = action.finish { resume(waiters) }
    }

    /// Carries on after upgrade `probe` did not happen (also when its pause has not come yet:
    /// it will not happen then).
    func resume(probe: Int) {
        let (poll, post) = transition { $0.resume(probe: probe) }
        if poll { startPolling() }
        if post { postLoop() }
    }

    func waitUntilClosed() async {
        await withCheckedContinuation { continuation in
            if transition({ $0.waitUntilClosed(continuation) }) { continuation.resume() }
        }
    }

    /// Stops issuing requests for upgrade `probe`; calls `done` once the GET and POST in flight
    /// have completed (the upgrade's "pause polling" step). Nothing happens when that probe was
    /// given up already.
    func pause(probe: Int, then done: @escaping @Sendable () -> Void) {
        if transition({ $0.pause(probe: probe, done) }) == .pausedNow { done() }
    }

    /// Drops the transport without a word to the server (after an upgrade replaced it).
    func discard() {
        let (poll, waiters) = transition { $0.discard() }
        poll?.cancel()
        resume(waiters)
    }

    /// The transport's state, one line (for diagnostics; never parsed).
    var diagnostics: String {
        transition { machine in
            switch machine.state {
            case .running(let session): "running " + Self.describe(session)
            case .paused(let session, let waiter): "paused (\(waiter == nil ? "idle" : "draining")) " + Self.describe(session)
            case .closing(let session): "closing " + Self.describe(session)
            case .finished: "finished"
            }
        }
    }

    private static func describe(_ session: Machine.Session) -> String {
        "(sid \(session.sid ?? "none"), GET \(session.getting ? "in flight" : "idle"), POST \(session.posting ? "in flight" : "idle")"
            + ", \(session.outbox.isEmpty ? "nothing" : "packets") queued)"
    }

    /// Packets queued but not yet posted (handed to the new transport after an upgrade).
    func takeUnsent() -> FencedPackets {
        transition { $0.takeUnsent() }
    }

    // MARK: - Receiving

    private func startPolling() {
        let task = Task(executorPreference: options.executor) { [self] in await pollLoop() }
        transition { $0.polling(task) }
    }

    private func pollLoop() async {
        while case .some(let sid) = transition({ $0.nextPoll() }) {
            do {
                let body = try await request(method: .GET, sid: sid, body: nil)
                try Task.checkCancellation()
                try receive(body, handshake: sid == nil)
            } catch is CancellationError {
                break
            } catch let error as PollingFailure {
                reporter.end(error.reason)
                break
            } catch {
                if !transition({ $0.isClosing }) {
                    reporter.end(.transportError("polling GET failed: \(error)"))
                }
                break
            }
        }
        transition { $0.pollEnded() }?()
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
                transition { $0.opened(sid: handshake.sid, maxPayload: handshake.maxPayload) }
            }
            reporter.packet(packet)
            if case .close = packet {
                transition { $0.closeReceived() }
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

    private func postLoop() {
        Task(executorPreference: options.executor) { [self] in
            let (limit, version) = (options.maxPacketsPerRequest, options.version)
            while let (sid, body) = transition({ $0.nextPost(maxPackets: limit, version: version) }) {
                do {
                    _ = try await request(method: .POST, sid: sid, body: body)
                } catch {
                    transition { $0.postFailed() }
                    reporter.end((error as? PollingFailure)?.reason ?? .transportError("polling POST failed: \(error)"))
                    break
                }
            }
            switch transition({ $0.postsEnded() }) {
            case .none: break
            case .paused(let waiter): waiter()
            case .finish(let waiters): resume(waiters)
            }
        }
    }

    /// Takes packets for one POST: at most `maxPackets`, and at most `maxBytes` of body (at least one).
    static func takeBatch(from outbox: inout Deque<EnginePacket>, maxPackets: Int, maxBytes: Int,
                          version: EngineIOVersion) -> [EnginePacket] {
        PollingOutbox.takeBatch(from: &outbox, maxPackets: maxPackets, maxBytes: maxBytes, version: version)
    }

    /// The transport finished: its connections close and its waiters go on.
    private func resume(_ waiters: [CheckedContinuation<Void, Never>]) {
        options.client.shutdown()
        for waiter in waiters { waiter.resume() }
    }
}
