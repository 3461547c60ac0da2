import Foundation
import NIOConcurrencyHelpers
public import SocketIOProtocol

extension Namespace {
    // MARK: - Cluster API

    /// How many servers serve this namespace: this one and every other heard from within the
    /// heartbeat timeout (1 with the in-process adapter).
    public var serverCount: Int { cluster?.serverCount ?? 1 }

    /// Returns once exactly `count` servers serve this namespace (this one included), or the
    /// server stops: for a server that must not broadcast before the others are there, and for
    /// tests. It waits as long as that takes; bound it with a timeout of your own.
    public func waitForServers(_ count: Int) async {
        guard let cluster else { return }
        await cluster.waitForServers(count)
    }

    /// Sends an event to the other servers of the cluster (not to this one, as socket.io's
    /// `serverSideEmit`); their ``onServerSideEmit(_:)`` handlers get it.
    public func serverSideEmit(_ event: String, _ items: JSONValue...) {
        cluster?.publish(.serverSideEmit(packet: [.string(event)] + items, requestId: nil))
    }

    /// Sends an event to the other servers and gathers one answer from each.
    ///
    /// - Throws: ``ClusterError/timedOut(missing:)`` when a server does not answer within
    ///   `timeout` (default ``ClusterOptions/requestTimeout``); ``ClusterError/publishFailed(_:)``.
    public func serverSideEmitWithAck(_ event: String, items: [JSONValue], timeout: Duration? = nil) async throws(ClusterError) -> [JSONValue] {
        guard let cluster else { return [] }
        return try await cluster.serverSideEmitWithAck([.string(event)] + items, timeout: timeout)
    }

    /// Handles events other servers send with ``serverSideEmit(_:_:)``.
    public func onServerSideEmit(_ handler: @escaping @Sendable (ServerSideEvent) async -> Void) {
        handlers.add(serverSide: handler)
    }

    /// Messages this namespace could not publish to the cluster and had no caller to tell.
    public var failedClusterPublishCount: Int { cluster?.failedPublishCount ?? 0 }

    /// Messages of other servers this namespace knows it missed: gaps in their numbering
    /// (``ClusterMessage/sequence``), each logged as a warning when found.
    public var missedClusterMessageCount: Int { cluster?.missedCount ?? 0 }

    /// The options a broadcast operator's selection crosses servers with.
    func clusterOptions(rooms: Set<String>, except: Set<String>, excluding: String?, volatile: Bool) -> ClusterBroadcastOptions {
        var except = except
        if let excluding { except.insert(excluding) }
        var flags = JSONObject()
        if volatile { flags["volatile"] = .bool(true) }
        return ClusterBroadcastOptions(rooms: rooms.sorted(), except: except.sorted(), flags: flags)
    }

    /// This server's sockets as `fetchSockets` describes them.
    func describe(_ sockets: [ServerSocket]) -> [RemoteSocket] {
        sockets.map { socket in
            RemoteSocket(id: socket.id, handshake: socket.handshake.clusterJSON, rooms: socket.rooms.sorted(), data: .object(socket.data))
        }
    }
}

/// An event from another server of the cluster (``Namespace/onServerSideEmit(_:)``).
public struct ServerSideEvent: Sendable {
    /// The event's name.
    public let name: String
    /// Its arguments.
    public let items: [JSONValue]
    private let replier: (@Sendable (JSONValue) -> Void)?

    init(packet: [JSONValue], reply: (@Sendable (JSONValue) -> Void)?) {
        self.name = packet.first?.stringValue ?? ""
        self.items = Array(packet.dropFirst())
        self.replier = reply
    }

    /// Whether the sender waits for an answer (``Namespace/serverSideEmitWithAck(_:items:timeout:)``).
    public var expectsReply: Bool { replier != nil }

    /// Answers the sender (once; later answers are ignored).
    public func reply(_ value: JSONValue) {
        replier?(value)
    }
}

extension SocketHandshake {
    /// The handshake in socket.io's shape, for `fetchSockets` across servers.
    var clusterJSON: JSONObject {
        var object = JSONObject()
        var headerObject = JSONObject()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { headerObject[name] = .string(value) }
        object["headers"] = .object(headerObject)
        object["time"] = .string(Self.javaScriptDate(time))
        // socket.io sends the remote address alone, without the port.
        object["address"] = address.map { .string(SessionRegistry.ip(of: $0)) } ?? .null
        object["xdomain"] = .bool(headers["origin"] != nil)
        object["secure"] = .bool(false)
        object["issued"] = .number((time.timeIntervalSince1970 * 1000).rounded())
        object["url"] = .string(url)
        var queryObject = JSONObject()
        for (name, value) in query.sorted(by: { $0.key < $1.key }) { queryObject[name] = .string(value) }
        object["query"] = .object(queryObject)
        object["auth"] = .object(auth ?? JSONObject())
        return object
    }
}

extension SocketHandshake {
    /// `date` as JavaScript's `Date.prototype.toString()` writes it in UTC, which socket.io's
    /// handshake `time` is: `Thu Nov 26 2026 04:07:57 GMT+0000 (Coordinated Universal Time)`.
    static func javaScriptDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.weekday, .month, .day, .year, .hour, .minute, .second], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        let weekday = weekdays[((parts.weekday ?? 1) - 1) % 7]
        let month = months[((parts.month ?? 1) - 1) % 12]
        let year = String(format: "%04d", parts.year ?? 1970)
        return "\(weekday) \(month) \(two(parts.day)) \(year) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT+0000 (Coordinated Universal Time)"
    }
}

// MARK: - The local half of cluster operations

extension Namespace: ClusterReceiver {
    private func selection(_ options: ClusterBroadcastOptions) -> BroadcastOperator {
        var selection = all.local.to(options.rooms)
        for room in options.except { selection = selection.except(room) }
        return options.isVolatile ? selection.volatile : selection
    }

    func clusterBroadcast(_ packet: ClusterPacket, options: ClusterBroadcastOptions, origin: ClusterOrigin?) {
        guard let durable, let origin else {
            guard let event = packet.event else { return }
            selection(options).emit(event, items: packet.items)
            return
        }
        // Delivered in order with this server's own numbered events, its offset the frontier.
        let writes = durable.order.inOrder { cursor -> [SendFollowUp] in
            cursor.advance(origin.uid, to: origin.sequence)
            guard let event = packet.event else { return [] }
            let selection = selection(options)
            return selection.queueLocally(event, items: packet.items, numberedOffset: options.isVolatile ? nil : cursor.offset(numbered: true)).writes
        }
        for write in writes { write.perform() }
    }

    func clusterAdvance(_ origin: ClusterOrigin) {
        durable?.order.inOrder { $0.advance(origin.uid, to: origin.sequence) }
    }

    func clusterBroadcastWithAck(
        _ packet: ClusterPacket,
        options: ClusterBroadcastOptions,
        onCount: @escaping @Sendable (Int) -> Void,
        onAck: @escaping @Sendable (JSONValue) -> Void
    ) {
        guard let event = packet.event else { return }
        selection(options).emitLocallyWithAck(event, items: packet.items, timeout: options.timeout ?? .seconds(10), onCount: onCount, onAck: onAck)
    }

    func clusterJoin(options: ClusterBroadcastOptions, rooms: [String]) {
        for socket in selection(options).sockets { socket.join(rooms) }
    }

    func clusterLeave(options: ClusterBroadcastOptions, rooms: [String]) {
        for socket in selection(options).sockets {
            for room in rooms { socket.leave(room) }
        }
    }

    func clusterDisconnect(options: ClusterBroadcastOptions, close: Bool) {
        for socket in selection(options).sockets { socket.disconnect(close: close) }
    }

    func clusterSockets(options: ClusterBroadcastOptions) -> [RemoteSocket] {
        describe(selection(options).sockets)
    }

    func clusterServerSideEmit(_ packet: [JSONValue], reply: (@Sendable (JSONValue) -> Void)?) {
        let handlers = self.handlers.serverSide
        let event = ServerSideEvent(packet: packet, reply: reply)
        guard !handlers.isEmpty else { return }
        Task {
            for handler in handlers { await handler(event) }
        }
    }
}
