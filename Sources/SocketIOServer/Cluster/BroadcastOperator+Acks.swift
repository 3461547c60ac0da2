import NIOConcurrencyHelpers
public import SocketIOProtocol
import SwitchboardCore

/// Not every selected client acknowledged a broadcast in time
/// (``BroadcastOperator/emitWithAck(_:items:timeout:)``).
public struct BroadcastAckTimeout: Error, Sendable, Hashable, CustomStringConvertible {
    /// The acknowledgements that did arrive (each client's first argument).
    public let responses: [JSONValue]
    /// How many were expected, when every server reported its client count.
    public let expected: Int?

    /// A one-line description, for logs.
    public var description: String {
        "operation has timed out: \(responses.count) of \(expected.map(String.init) ?? "unknown") acknowledgements"
    }
}

extension BroadcastOperator {
    /// Sends an event to every selected socket, on every server, and gathers each client's
    /// acknowledgement (its first argument), as socket.io's `timeout(…).emitWithAck`.
    ///
    /// - Throws: ``BroadcastAckTimeout`` with the acknowledgements that did arrive when not
    ///   every client answered within `timeout`.
    public func emitWithAck(_ event: String, items: [JSONValue], timeout: Duration = .seconds(10)) async throws(BroadcastAckTimeout) -> [JSONValue] {
        let collector = AckCollector()
        let result: Result<[JSONValue], BroadcastAckTimeout> = await withCheckedContinuation { continuation in
            collector.onFinish { continuation.resume(returning: $0) }
            var otherServers = 0
            if !isLocal, let cluster = namespace.cluster {
                var options = namespace.clusterOptions(rooms: rooms, except: exceptRooms, excluding: excluding, volatile: isVolatile)
                options.flags["timeout"] = .number(Double(timeout.wholeMilliseconds))
                otherServers = cluster.broadcastWithAck(
                    ClusterPacket(event: event, items: items, namespace: namespace.name),
                    options: options, timeout: timeout,
                    onCount: { collector.count($0) },
                    onAck: { collector.ack($0) }
                )
            }
            collector.expectServers(otherServers + 1)
            _ = namespace.environment.clock.schedule(timeout) { collector.expire() }
            emitLocallyWithAck(event, items: items, timeout: timeout, onCount: { collector.count($0) }, onAck: { collector.ack($0) })
        }
        return try result.get()
    }

    /// Sends the event to this server's selected sockets asking each for an acknowledgement:
    /// `onCount` once with how many, `onAck` per answer (its first argument).
    func emitLocallyWithAck(
        _ event: String,
        items: [JSONValue],
        timeout: Duration,
        onCount: @escaping @Sendable (Int) -> Void,
        onAck: @escaping @Sendable (JSONValue) -> Void
    ) {
        let recipients = sockets
        onCount(recipients.count)
        for socket in recipients {
            Task {
                if let answer = try? await socket.emitWithAck(event, items: items, timeout: timeout) {
                    onAck(answer.first ?? .null)
                }
            }
        }
    }
}

/// Counts servers' client counts and clients' acknowledgements until all are in or time is up.
private final class AckCollector: Sendable {
    private struct State {
        var expectedServers: Int?
        var countedServers = 0
        var expectedAcks = 0
        var responses: [JSONValue] = []
        var finish: (@Sendable (Result<[JSONValue], BroadcastAckTimeout>) -> Void)?
        var done = false
    }

    private let state = NIOLockedValueBox(State())

    func onFinish(_ finish: @escaping @Sendable (Result<[JSONValue], BroadcastAckTimeout>) -> Void) {
        state.withLockedValue { $0.finish = finish }
    }

    func expectServers(_ count: Int) { settle { $0.expectedServers = count } }

    func count(_ clients: Int) {
        settle { state in
            state.countedServers += 1
            // Saturating: the counts are other servers' numbers, read from the cluster's channel.
            let sum = state.expectedAcks.addingReportingOverflow(clients)
            state.expectedAcks = sum.overflow ? Int.max : sum.partialValue
        }
    }

    func ack(_ value: JSONValue) { settle { $0.responses.append(value) } }

    func expire() {
        let finish: (@Sendable (Result<[JSONValue], BroadcastAckTimeout>) -> Void, BroadcastAckTimeout)? = state.withLockedValue { state in
            guard !state.done, let finish = state.finish else { return nil }
            state.done = true
            let complete = state.expectedServers.map { state.countedServers >= $0 } ?? false
            return (finish, BroadcastAckTimeout(responses: state.responses, expected: complete ? state.expectedAcks : nil))
        }
        if let (finish, timeout) = finish { finish(.failure(timeout)) }
    }

    private func settle(_ change: (inout State) -> Void) {
        let finished: (@Sendable (Result<[JSONValue], BroadcastAckTimeout>) -> Void, [JSONValue])? = state.withLockedValue { state in
            guard !state.done else { return nil }
            change(&state)
            guard let servers = state.expectedServers, state.countedServers >= servers,
                  state.responses.count >= state.expectedAcks, let finish = state.finish else { return nil }
            state.done = true
            return (finish, state.responses)
        }
        if let (finish, responses) = finished { finish(.success(responses)) }
    }
}
