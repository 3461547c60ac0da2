import Logging
public import SocketIOProtocol

/// A set of a namespace's sockets to emit to: rooms to include, rooms to leave out, and the
/// sender to skip (socket.io's `io.to(…).except(…)`, `socket.broadcast`).
///
/// ```swift
/// chat.to("room1").to("room2").except("muted").emit("news", "hello")
/// socket.broadcast.emit("joined", .string(socket.id))   // everyone but the sender
/// socket.to("lobby").emit("typing")                      // the lobby, but not the sender
/// ```
///
/// The event is encoded once and the same bytes go to every recipient's queue.
public struct BroadcastOperator: Sendable {
    let namespace: Namespace
    var rooms: Set<String> = []
    var exceptRooms: Set<String> = []
    var excluding: String?
    var isVolatile = false

    init(namespace: Namespace, excluding: String? = nil) {
        self.namespace = namespace
        self.excluding = excluding
    }

    /// Narrows to sockets in `room` (several `to` calls make a union).
    public func to(_ room: String) -> BroadcastOperator {
        var copy = self
        copy.rooms.insert(room)
        return copy
    }

    /// Narrows to sockets in any of `rooms`.
    public func to(_ rooms: some Sequence<String>) -> BroadcastOperator {
        var copy = self
        copy.rooms.formUnion(rooms)
        return copy
    }

    /// Same as ``to(_:)-(String)`` (socket.io's `in`).
    public func `in`(_ room: String) -> BroadcastOperator { to(room) }

    /// Leaves out sockets in `room`.
    public func except(_ room: String) -> BroadcastOperator {
        var copy = self
        copy.exceptRooms.insert(room)
        return copy
    }

    /// Emits without storing for recovery; sockets that are not connected miss it.
    public var volatile: BroadcastOperator {
        var copy = self
        copy.isVolatile = true
        return copy
    }

    /// Sends an event to every selected socket.
    @discardableResult
    public func emit(_ event: String, _ items: JSONValue...) -> Int {
        emit(event, items: items)
    }

    /// Sends an event to every selected socket; returns how many connected sockets it was sent to.
    @discardableResult
    public func emit(_ event: String, items: [JSONValue]) -> Int {
        guard !SocketPacket.reservedEventNames.contains(event) else {
            namespace.environment.logger.warning("not emitting a reserved event name", metadata: ["socketio.event": "\(event)"])
            return 0
        }
        let recipients = namespace.recipients(rooms: rooms, except: exceptRooms, excluding: excluding)
        guard !recipients.isEmpty else { return 0 }
        let (frames, offset) = namespace.encodeEvent(event, items: items, storable: !isVolatile)
        // Protocol v4 clients get the event without the recovery offset (encoded once, if any).
        var withoutOffset: [EngineFrame]?
        var sent = 0
        for recipient in recipients {
            let delivered: Bool
            if offset != nil, !recipient.outbox.takesOffsets {
                let plain = withoutOffset ?? EngineFrame.frames(of: .event(event, items, namespace: namespace.name))
                withoutOffset = plain
                delivered = recipient.outbox.deliver(plain, offset: nil)
            } else {
                delivered = recipient.outbox.deliver(frames, offset: offset)
            }
            if delivered { sent += 1 }
        }
        return sent
    }

    /// The selected sockets that are connected.
    public var sockets: [ServerSocket] {
        namespace.recipients(rooms: rooms, except: exceptRooms, excluding: excluding).compactMap(\.socket)
    }

    /// Makes the selected sockets join `room`.
    public func socketsJoin(_ room: String) {
        for socket in sockets { socket.join(room) }
    }

    /// Makes the selected sockets leave `room`.
    public func socketsLeave(_ room: String) {
        for socket in sockets { socket.leave(room) }
    }

    /// Disconnects the selected sockets (`close: true` also closes their connections).
    public func disconnectSockets(close: Bool = false) {
        for socket in sockets { socket.disconnect(close: close) }
    }
}
