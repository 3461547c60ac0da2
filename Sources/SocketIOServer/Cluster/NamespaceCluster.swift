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
    /// This server's id in this namespace's cluster (16 hex digits, as socket.io's).
    let uid: String
    let name: String
    private let transport: any ClusterTransport
    private let options: ClusterOptions
    private let clock: Timeline
    private let logger: Logger
    private let state = NIOLockedValueBox(ClusterState())
    private let receiver = NIOLockedValueBox<(any ClusterReceiver)?>(nil)
    private let outgoing = OutgoingQueue<Outgoing>()
    private let incoming: AsyncStream<ClusterMessage>.Continuation
    private let incomingStream: AsyncStream<ClusterMessage>
    private let tasks = NIOLockedValueBox<[Task<Void, Never>]>([])
    private let failures = NIOLockedValueBox(0)
    /// The last sequence number given to an outgoing message, and when the last message was
    /// made (the heartbeat is due a heartbeat interval after it).
    private let numbering = NIOLockedValueBox(Numbering())
    private struct Numbering {
        var last: UInt64 = 0
        var lastMadeAt: Duration = .zero
    }
    private let countWaiters = NIOLockedValueBox<[(count: Int, continuation: CheckedContinuation<Void, Never>)]>([])

    /// The namespace's metrics (servers seen, failed publishes), when it has them.
    private let metrics: NamespaceMetrics?

    private struct Outgoing: Sendable {
        let message: ClusterMessage
        let madeAt: Duration
        let done: (@Sendable (Result<Void, ClusterError>) -> Void)?
    }

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
        (incomingStream, incoming) = AsyncStream.makeStream(of: ClusterMessage.self)
    }

    /// The uid socket.io's emitter packages publish with (`@socket.io/postgres-emitter` and
    /// the others): not a server.
    static let emitterUID = "emitter"

    /// 8 random bytes in hex, as socket.io's `randomId()`.
    static func randomUID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    // MARK: - Lifecycle

    /// Subscribes to the namespace's channel, starts publishing, heartbeating and checking the
    /// other servers, and announces this one (`INITIAL_HEARTBEAT`).
    func start(receiver: any ClusterReceiver) async throws {
        self.receiver.withLockedValue { $0 = receiver }
        let incoming = self.incoming
        try await transport.subscribe(namespace: name) { message in incoming.yield(message) }
        let started = [
            Task { await self.publishLoop() },
            Task { await self.receiveLoop() },
            Task { await self.heartbeatLoop() },
            Task { await self.livenessLoop() },
        ]
        tasks.withLockedValue { $0.append(contentsOf: started) }
        publish(.none(.initialHeartbeat))
    }

    /// Says goodbye (`ADAPTER_CLOSE`, awaited briefly), fails the waiting requests, stops.
    func shutdown() async {
        let alreadyClosed = state.withLockedValue { $0.closed }
        guard !alreadyClosed else { return }
        _ = try? await publishAwaiting(.none(.adapterClose), within: .seconds(1))
        let actions = state.withLockedValue { $0.close() }
        perform(actions)
        for item in outgoing.close(dropping: true) { item.done?(.failure(.closed)) }
        incoming.finish()
        let running = tasks.withLockedValue { tasks in
            defer { tasks.removeAll() }
            return tasks
        }
        for task in running { task.cancel() }
        receiver.withLockedValue { $0 = nil }
        // Nobody waits for servers of a namespace that left the cluster.
        let waiting = countWaiters.withLockedValue { waiters in
            defer { waiters.removeAll() }
            return waiters.map(\.continuation)
        }
        for continuation in waiting { continuation.resume() }
    }

    /// This server and every other one heard from within the heartbeat timeout.
    var serverCount: Int { state.withLockedValue { $0.serverCount } }

    /// Returns once exactly `count` servers (this one included) are known, or the adapter closed.
    func waitForServers(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state in
                if state.serverCount == count || state.closed { return true }
                countWaiters.withLockedValue { $0.append((count, continuation)) }
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Wakes the waiters whose count the cluster now has.
    private func serversChanged() {
        let (ready, count) = state.withLockedValue { state in
            let ready = countWaiters.withLockedValue { waiters in
                let ready = waiters.filter { $0.count == state.serverCount }
                waiters.removeAll { $0.count == state.serverCount }
                return ready.map(\.continuation)
            }
            return (ready, state.serverCount)
        }
        metrics?.clusterServers(count)
        for continuation in ready { continuation.resume() }
    }

    /// Messages that could not be published and had no caller to tell.
    var failedPublishCount: Int { failures.withLockedValue { $0 } }

    // MARK: - Publishing

    /// Publishes `payload` after everything published before it; failures are logged.
    func publish(_ payload: ClusterPayload) {
        enqueue(payload, done: nil)
    }

    /// Publishes `payload` in order and returns once the transport took it.
    func publishAwaiting(_ payload: ClusterPayload) async throws(ClusterError) {
        try await publishAwaiting(payload, within: nil)
    }

    private func publishAwaiting(_ payload: ClusterPayload, within limit: Duration?) async throws(ClusterError) {
        let result: Result<Void, ClusterError> = await withCheckedContinuation { continuation in
            let once = NIOLockedValueBox(false)
            let done: @Sendable (Result<Void, ClusterError>) -> Void = { result in
                guard once.withLockedValue({ fired in defer { fired = true }; return !fired }) else { return }
                continuation.resume(returning: result)
            }
            if let limit {
                _ = clock.schedule(limit) { done(.failure(.publishFailed("not published within \(limit)"))) }
            }
            enqueue(payload, done: done)
        }
        try result.get()
    }

    private func enqueue(_ payload: ClusterPayload, done: (@Sendable (Result<Void, ClusterError>) -> Void)?) {
        // Numbered and queued under one lock, so the numbers go out in order.
        let accepted = numbering.withLockedValue { numbering -> Bool in
            numbering.last += 1
            numbering.lastMadeAt = clock.now()
            let message = ClusterMessage(uid: uid, namespace: name, payload: payload, sequence: numbering.last)
            return outgoing.push(Outgoing(message: message, madeAt: numbering.lastMadeAt, done: done))
        }
        if !accepted { done?(.failure(.closed)) }
    }

    /// Messages of other servers known lost (gaps in their numbering).
    var missedCount: Int { state.withLockedValue { $0.missed } }

    /// The most messages handed to the transport at once.
    static let batchLimit = 64

    /// Publishes what queued up, a batch at a time, in order. A batch that fails is tried again
    /// (its members past ``ClusterOptions/publishTimeout`` are failed and left out), with a
    /// delay doubling from 50 ms to 1 s.
    private func publishLoop() async {
        while let batch = await outgoing.next(max: Self.batchLimit) {
            var pending = batch
            var delay: Duration = .milliseconds(50)
            while !pending.isEmpty {
                do {
                    try await transport.publish(pending.map(\.message))
                    for item in pending { item.done?(.success(())) }
                    break
                } catch {
                    metrics?.clusterPublishFailed()
                    let now = clock.now()
                    let closing = Task.isCancelled
                    let expired = pending.filter { closing || now - $0.madeAt >= options.publishTimeout }
                    for item in expired { fail(item, because: "\(error)") }
                    pending.removeAll { closing || now - $0.madeAt >= options.publishTimeout }
                    guard !pending.isEmpty else { break }
                    logger.debug("cluster publish failed, retrying", metadata: ["error": "\(error)", "messages": "\(pending.count)"])
                    do { try await clock.sleep(delay) } catch {
                        for item in pending { fail(item, because: "the adapter closed") }
                        break
                    }
                    delay = min(delay * 2, .seconds(1))
                }
            }
        }
    }

    private func fail(_ item: Outgoing, because reason: String) {
        if let done = item.done {
            done(.failure(.publishFailed(reason)))
        } else {
            failures.withLockedValue { $0 += 1 }
            logger.error(
                "cluster message not published",
                metadata: ["socketio.cluster.type": "\(item.message.type.rawValue)", "error": "\(reason)"]
            )
        }
    }

    // MARK: - Requests

    /// Asks every other server for its sockets that `options` select; `local` are this one's.
    func fetchSockets(options selection: ClusterBroadcastOptions, local: [RemoteSocket], timeout: Duration?) async throws(ClusterError) -> [RemoteSocket] {
        let id = Self.randomUID()
        let values = try await request(id, seed: local.map(\.json), timeout: timeout ?? options.requestTimeout) {
            .fetchSockets(options: selection, requestId: id)
        }
        var sockets: [RemoteSocket] = []
        for value in values {
            if let socket = try? RemoteSocket(json: value) { sockets.append(socket) }
        }
        return sockets
    }

    /// Sends `packet` (`[event, arguments…]`) to every other server and gathers one answer from each.
    func serverSideEmitWithAck(_ packet: [JSONValue], timeout: Duration?) async throws(ClusterError) -> [JSONValue] {
        let id = Self.randomUID()
        return try await request(id, seed: [], timeout: timeout ?? options.requestTimeout) {
            .serverSideEmit(packet: packet, requestId: id)
        }
    }

    private func request(
        _ id: String,
        seed: [JSONValue],
        timeout: Duration,
        payload: () -> ClusterPayload
    ) async throws(ClusterError) -> [JSONValue] {
        let message = payload()
        let result: Result<[JSONValue], ClusterError> = await withCheckedContinuation { continuation in
            let complete: @Sendable (Result<[JSONValue], ClusterError>) -> Void = { continuation.resume(returning: $0) }
            switch state.withLockedValue({ $0.open(id, responses: seed, complete: complete) }) {
            case .closed:
                complete(.failure(.closed))
            case .alone:
                complete(.success(seed))
            case .opened:
                _ = clock.schedule(timeout) { [weak self] in
                    guard let self else { return }
                    self.perform(self.state.withLockedValue { $0.expire(id) }.map { [$0] } ?? [])
                }
                enqueue(message) { [weak self] result in
                    guard case .failure(let error) = result, let self else { return }
                    // Not published: nobody will answer; fail now rather than at the timeout.
                    if let action = self.state.withLockedValue({ $0.expire(id) }) {
                        if case .complete(let request, _) = action { request.complete(.failure(error)) }
                    }
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
        let others = state.withLockedValue { state -> Int in
            state.listen(id, ClusterState.AckListener(onCount: onCount, onAck: onAck))
            return state.nodes.count
        }
        _ = clock.schedule(timeout) { [weak self] in self?.state.withLockedValue { $0.stopListening(id) } }
        publish(.broadcast(packet: packet, options: selection, requestId: id))
        return others
    }

    // MARK: - Receiving

    private func receiveLoop() async {
        for await message in incomingStream {
            receive(message)
        }
    }

    /// Applies one message from the channel.
    func receive(_ message: ClusterMessage) {
        guard message.uid != uid, message.namespace == name else { return }
        if let number = message.sequence {
            switch state.withLockedValue({ $0.arrival(of: number, from: message.uid) }) {
            case .fresh:
                break
            case .duplicate:
                metrics?.clusterDuplicateDropped()
                return
            case .afterGap(let count):
                metrics?.clusterMessagesMissed(count)
                logger.warning(
                    "cluster messages lost",
                    metadata: ["socketio.cluster.from": "\(message.uid)", "socketio.cluster.missed": "\(count)"]
                )
            }
        }
        // socket.io's emitters publish as "emitter": broadcasts to deliver, never a server to
        // count or to wait for (socket.io-adapter's EMITTER_UID).
        let isServer = message.uid != Self.emitterUID
        let now = clock.now()
        let isNew = isServer && state.withLockedValue { state in
            defer { state.heard(from: message.uid, at: now) }
            return state.nodes[message.uid] == nil
        }
        if isNew {
            logger.info("cluster server joined", metadata: ["socketio.cluster.node": "\(message.uid)"])
            serversChanged()
        }
        let payload: ClusterPayload
        do {
            payload = try message.payload
        } catch {
            logger.warning("skipping a malformed cluster message", metadata: ["error": "\(error)", "socketio.cluster.from": "\(message.uid)"])
            return
        }
        guard let receiver = receiver.withLockedValue({ $0 }) else { return }
        switch payload {
        case .none(.initialHeartbeat):
            publish(.none(.heartbeat))
        case .none(.adapterClose):
            perform(state.withLockedValue { $0.remove(message.uid) })
            serversChanged()
        case .none:
            break
        case .broadcast(let packet, let selection, nil):
            receiver.clusterBroadcast(packet, options: selection)
        case .broadcast(let packet, let selection, let requestId?):
            receiver.clusterBroadcastWithAck(
                packet, options: selection,
                onCount: { [weak self] count in self?.publish(.broadcastClientCount(requestId: requestId, count: count)) },
                onAck: { [weak self] value in self?.publish(.broadcastAck(requestId: requestId, value: value)) }
            )
        case .socketsJoin(let selection, let rooms):
            receiver.clusterJoin(options: selection, rooms: rooms)
        case .socketsLeave(let selection, let rooms):
            receiver.clusterLeave(options: selection, rooms: rooms)
        case .disconnectSockets(let selection, let close):
            receiver.clusterDisconnect(options: selection, close: close)
        case .fetchSockets(let selection, let requestId):
            let sockets = receiver.clusterSockets(options: selection)
            publish(.fetchSocketsResponse(requestId: requestId, sockets: sockets))
        case .serverSideEmit(let packet, nil):
            receiver.clusterServerSideEmit(packet, reply: nil)
        case .serverSideEmit(let packet, let requestId?):
            let replied = NIOLockedValueBox(false)
            receiver.clusterServerSideEmit(packet) { [weak self] value in
                // One answer per server, as socket.io's.
                guard !replied.withLockedValue({ done in defer { done = true }; return done }) else { return }
                self?.publish(.serverSideEmitResponse(requestId: requestId, value: value))
            }
        case .fetchSocketsResponse(let requestId, let sockets):
            perform(state.withLockedValue { $0.answer(requestId, from: message.uid, values: sockets.map(\.json)) }.map { [$0] } ?? [])
        case .serverSideEmitResponse(let requestId, let value):
            perform(state.withLockedValue { $0.answer(requestId, from: message.uid, values: [value]) }.map { [$0] } ?? [])
        case .broadcastClientCount(let requestId, let count):
            perform(state.withLockedValue { $0.count(requestId, count) }.map { [$0] } ?? [])
        case .broadcastAck(let requestId, let value):
            perform(state.withLockedValue { $0.ack(requestId, value) }.map { [$0] } ?? [])
        }
    }

    private func perform(_ actions: [ClusterState.Action]) {
        for action in actions {
            switch action {
            case .complete(let request, let result): request.complete(result)
            case .count(let listener, let count): listener.onCount(count)
            case .ack(let listener, let value): listener.onAck(value)
            }
        }
    }

    // MARK: - Liveness

    /// Publishes a heartbeat a heartbeat interval after the last message was made (whatever it
    /// was), as socket.io restarts its heartbeat timer on every publish. Counting from when a
    /// publish *finished* instead skipped every second wake-up: heartbeats came every 10 s, and
    /// a Node server with a timeout under 10 s forgot this one.
    private func heartbeatLoop() async {
        while !Task.isCancelled {
            let due = numbering.withLockedValue { $0.lastMadeAt } + options.heartbeatInterval
            let now = clock.now()
            if now >= due {
                publish(.none(.heartbeat))
                continue
            }
            do { try await clock.sleep(due - now) } catch { return }
        }
    }

    /// Every second, forgets the servers silent for longer than the heartbeat timeout.
    private func livenessLoop() async {
        while !Task.isCancelled {
            do { try await clock.sleep(.seconds(1)) } catch { return }
            let now = clock.now()
            let silent = state.withLockedValue { $0.silent(at: now, timeout: options.heartbeatTimeout) }
            for uid in silent {
                logger.info("cluster server seems down, forgetting it", metadata: ["socketio.cluster.node": "\(uid)"])
                perform(state.withLockedValue { $0.remove(uid) })
            }
            if !silent.isEmpty { serversChanged() }
        }
    }
}
