import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import SwitchboardCore

/// socket.io's `ClusterAdapterWithHeartbeat` for one namespace: publishes this server's
/// broadcasts, room changes and requests to the others over a ``ClusterTransport``, applies
/// theirs through the namespace (``ClusterReceiver``), and keeps the list of live servers by
/// their heartbeats.
///
/// Messages are published in the order they were made, one at a time. One that cannot be
/// handed to the transport (the database is restarting) is retried, still in order, until
/// ``ClusterOptions/publishTimeout`` after it was made; then it fails: a caller awaiting it gets
/// ``ClusterError/publishFailed(_:)``, otherwise it is logged as an error and counted
/// (``failedPublishCount``). Incoming messages are applied in the order they arrive.
final class NamespaceCluster: Sendable {
    /// The machine with continuations: `waitForServers` callers and the publish loop wait
    /// with `Void` ones, `publishAwaiting` callers with one for their message's outcome.
    typealias Machine = ClusterState<CheckedContinuation<Void, Never>, CheckedContinuation<Result<Void, ClusterError>, Never>>

    /// This server's id in this namespace's cluster (16 hex digits, as socket.io's).
    let uid: String
    let name: String
    private let transport: any ClusterTransport
    private let options: ClusterOptions
    let clock: Timeline
    let logger: Logger
    /// All the mutable state; every input is one ``transition(_:)``.
    private let state: NIOLockedValueBox<Machine>

    /// The namespace's metrics (servers seen, failed publishes), when it has them.
    let metrics: NamespaceMetrics?

    init(
        name: String, transport: any ClusterTransport, options: ClusterOptions, clock: Timeline, logger: Logger,
        metrics: NamespaceMetrics? = nil
    ) {
        self.metrics = metrics
        self.uid = Self.randomUID()
        self.name = name
        self.transport = transport
        self.options = options
        self.clock = clock
        var logger = logger
        logger[metadataKey: "socketio.cluster.uid"] = "\(uid)"
        logger[metadataKey: "socketio.namespace"] = "\(name)"
        self.logger = logger
        self.state = NIOLockedValueBox(Machine(uid: uid, namespace: name, options: options))
    }

    /// The uid socket.io's emitter packages publish with (`@socket.io/postgres-emitter` and
    /// the others): not a server.
    static let emitterUID = "emitter"

    /// 8 random bytes in hex, as socket.io's `randomId()`.
    static func randomUID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Feeds one input to the machine under the lock; what it returns is performed after.
    func transition<Output>(_ input: (inout Machine) -> Output) -> Output {
        state.withLockedValue(input)
    }

    /// Performs what a transition asked for, outside the lock.
    func perform(_ effects: Machine.Effects) {
        for task in effects.cancel { task.cancel() }
        effects.wake?.resume()
        for (request, result) in effects.completions { request.complete(result) }
        for (caller, result) in effects.callers { caller.resume(returning: result) }
        for (type, reason) in effects.unpublished {
            logger.error("cluster message not published", metadata: ["socketio.cluster.type": "\(type.rawValue)", "error": "\(reason)"])
        }
        if let count = effects.serverCount { metrics?.clusterServers(count) }
        for waiter in effects.ready { waiter.resume() }
    }

    // MARK: - Lifecycle

    /// Subscribes to the namespace's channel, starts publishing, heartbeating and checking the
    /// other servers, and announces this one (`INITIAL_HEARTBEAT`).
    func start(receiver: any ClusterReceiver) async throws {
        guard transition({ $0.start(receiver) }) else { return }
        do {
            // Applied where the transport hands it over, without a hop to a task of ours: a
            // message reaches the sockets one scheduling step sooner. The machine applies
            // nothing before the start or after the close (its receiver is `nil` then).
            try await transport.subscribe(namespace: name) { [weak self] message in self?.receive(message) }
        } catch {
            let reason = "\(error)"
            perform(transition { $0.subscribeFailed(reason: reason) })
            throw error
        }
        let now = clock.now()
        switch transition({ $0.subscribed(at: now) }) {
        case .startLoops(let wake):
            wake?.resume()
        case .startLoopsToSayGoodbye:
            break
        case .stop:
            return
        }
        let started = [
            Task(executorPreference: transport.taskExecutor) { await self.publishLoop() },
            Task { await self.heartbeatLoop() },
            Task { await self.livenessLoop() },
        ]
        for task in transition({ $0.attach(started) }) { task.cancel() }
    }

    /// Says goodbye (`ADAPTER_CLOSE`, awaited briefly) unless it never started, fails the
    /// waiting requests, stops.
    func shutdown() async {
        switch transition({ $0.beginShutdown() }) {
        case .sayGoodbye:
            _ = try? await publishAwaiting(.none(.adapterClose), within: .seconds(1))
        case .close:
            break
        case .alreadyBegun:
            return
        }
        perform(transition { $0.close() })
    }

    /// This server and every other one heard from within the heartbeat timeout.
    var serverCount: Int { transition { $0.serverCount } }

    /// Whether the adapter is closing or closed (the server is leaving the cluster).
    var isLeaving: Bool { transition { $0.isLeaving } }

    /// Returns once exactly `count` servers (this one included) are known, or the adapter closed.
    func waitForServers(_ count: Int) async {
        await withCheckedContinuation { continuation in
            if !transition({ $0.waitForServers(count, continuation) }) { continuation.resume() }
        }
    }

    /// Messages that could not be published and had no caller to tell.
    var failedPublishCount: Int { transition { $0.failures } }

    /// Messages of other servers known lost (gaps in their numbering).
    var missedCount: Int { transition { $0.missed } }

    // MARK: - Publishing

    /// Publishes `payload` after everything published before it; failures are logged.
    func publish(_ payload: ClusterPayload) {
        publishNumbered(payload)
    }

    /// Queues `payload` like ``publish(_:)`` (`caller`, if given, is told the outcome) and
    /// returns its number, or why the adapter refused it (closed, or its start failed: `caller`
    /// is not told).
    @discardableResult
    func publishNumbered(_ payload: ClusterPayload, caller: CheckedContinuation<Result<Void, ClusterError>, Never>? = nil) -> Result<UInt64, ClusterError> {
        let message = unnumbered(payload)
        let now = clock.now()
        switch transition({ $0.enqueue(message, at: now, caller: caller) }) {
        case .queued(let sequence, let wake):
            wake?.resume()
            return .success(sequence)
        case .refused(let error):
            return .failure(error)
        }
    }

    /// Publishes `payload` in order and returns once the transport took it.
    func publishAwaiting(_ payload: ClusterPayload) async throws(ClusterError) {
        try await publishAwaiting(payload, within: nil)
    }

    private func publishAwaiting(_ payload: ClusterPayload, within limit: Duration?) async throws(ClusterError) {
        let message = unnumbered(payload)
        let now = clock.now()
        let result: Result<Void, ClusterError> = await withCheckedContinuation { continuation in
            switch transition({ $0.enqueue(message, at: now, caller: continuation) }) {
            case .queued(let sequence, let wake):
                wake?.resume()
                if let limit {
                    _ = clock.schedule(limit) {
                        let caller = self.transition { $0.abandon(sequence) }
                        caller?.resume(returning: .failure(.publishFailed("not published within \(limit)")))
                    }
                }
            case .refused(let error):
                continuation.resume(returning: .failure(error))
            }
        }
        try result.get()
    }

    /// `payload` from this server, to be numbered when it is queued.
    private func unnumbered(_ payload: ClusterPayload) -> ClusterMessage {
        ClusterMessage(uid: uid, namespace: name, payload: payload)
    }

    /// The most messages handed to the transport at once.
    static let batchLimit = 64

    /// Publishes what queued up, a batch at a time, in order. A batch that fails is tried again
    /// (its members past ``ClusterOptions/publishTimeout`` are failed and left out), with a
    /// delay doubling from 50 ms to 1 s.
    private func publishLoop() async {
        while let batch = await nextBatch() {
            var pending = batch
            var delay = RetryDelay(cap: .seconds(1))
            while !pending.isEmpty {
                do {
                    try await transport.publish(pending.map(\.message))
                    perform(transition { $0.published(pending) })
                    break
                } catch {
                    metrics?.clusterPublishFailed()
                    let (now, giveUp, reason) = (clock.now(), Task.isCancelled, "\(error)")
                    let (retry, effects) = transition { $0.publishFailed(pending, at: now, giveUp: giveUp, reason: reason) }
                    perform(effects)
                    pending = retry
                    guard !pending.isEmpty else { break }
                    logger.debug("cluster publish failed, retrying", metadata: ["error": "\(error)", "messages": "\(pending.count)"])
                    do { try await clock.sleep(delay.next()) } catch {
                        perform(transition { $0.unpublished(pending, reason: "the adapter closed") })
                        break
                    }
                }
            }
        }
    }

    /// The publish loop's next batch, once there is one; `nil` once the adapter closed.
    private func nextBatch() async -> [Machine.Item]? {
        while true {
            switch transition({ $0.takeOutgoing(max: Self.batchLimit) }) {
            case .batch(let items):
                return items
            case .finished:
                return nil
            case .empty:
                await withCheckedContinuation { continuation in
                    if !transition({ $0.waitForOutgoing(continuation) }) { continuation.resume() }
                }
            }
        }
    }

    /// Publishes a heartbeat a heartbeat interval after the last message was made, as the
    /// machine says (``ClusterState/heartbeat(at:)``).
    private func heartbeatLoop() async {
        while !Task.isCancelled {
            let now = clock.now()
            switch transition({ $0.heartbeat(at: now) }) {
            case .published(let wake):
                wake?.resume()
            case .wait(let delay):
                do { try await clock.sleep(delay) } catch { return }
            case .stop:
                return
            }
        }
    }

    // MARK: - Requests

    /// Asks every other server for its sockets that `options` select; `local` are this one's.
    func fetchSockets(options selection: ClusterBroadcastOptions, local: [RemoteSocket], timeout: Duration?) async throws(ClusterError) -> [RemoteSocket] {
        let id = Self.randomUID()
        let values = try await request(id, .fetchSockets(options: selection, requestId: id), seed: local.map(\.json), timeout: timeout ?? options.requestTimeout)
        var sockets: [RemoteSocket] = []
        for value in values {
            if let socket = try? RemoteSocket(json: value) { sockets.append(socket) }
        }
        return sockets
    }

    /// Sends `packet` (`[event, arguments…]`) to every other server and gathers one answer from each.
    func serverSideEmitWithAck(_ packet: [JSONValue], timeout: Duration?) async throws(ClusterError) -> [JSONValue] {
        let id = Self.randomUID()
        return try await request(id, .serverSideEmit(packet: packet, requestId: id), seed: [], timeout: timeout ?? options.requestTimeout)
    }

    private func request(_ id: String, _ payload: ClusterPayload, seed: [JSONValue], timeout: Duration) async throws(ClusterError) -> [JSONValue] {
        let message = unnumbered(payload)
        let now = clock.now()
        let result: Result<[JSONValue], ClusterError> = await withCheckedContinuation { continuation in
            let complete: @Sendable (Result<[JSONValue], ClusterError>) -> Void = { continuation.resume(returning: $0) }
            switch transition({ $0.request(id, message: message, responses: seed, at: now, complete: complete) }) {
            case .refused(let error):
                complete(.failure(error))
            case .alone:
                complete(.success(seed))
            case .opened(let wake):
                wake?.resume()
                _ = clock.schedule(timeout) { [weak self] in
                    self?.settle(self?.transition { $0.expire(id) })
                }
            }
        }
        return try result.get()
    }

    /// Publishes a broadcast asking for acknowledgements and routes the other servers' client
    /// counts and acknowledgements to the listeners until `timeout` passes.
    /// Returns how many other servers are expected to report a client count.
    func broadcastWithAck(
        _ packet: ClusterPacket,
        options selection: ClusterBroadcastOptions,
        timeout: Duration,
        onCount: @escaping @Sendable (Int) -> Void,
        onAck: @escaping @Sendable (JSONValue) -> Void
    ) -> Int {
        let id = Self.randomUID()
        let others = transition { $0.listen(id, ClusterRequests.AckListener(onCount: onCount, onAck: onAck)) }
        _ = clock.schedule(timeout) { [weak self] in self?.transition { $0.stopListening(id) } }
        publish(.broadcast(packet: packet, options: selection, requestId: id))
        return others
    }

    /// Completes a request the machine settled.
    func settle(_ completion: ClusterRequests.Completion?) {
        guard let completion else { return }
        completion.request.complete(completion.result)
    }
}
