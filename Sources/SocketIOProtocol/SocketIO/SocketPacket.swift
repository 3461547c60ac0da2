/// One Socket.IO packet: a namespace-level CONNECT, DISCONNECT, EVENT, ACK or CONNECT_ERROR.
///
/// Binary values stay inside ``data`` as ``JSONValue/binary(_:)``: the encoder turns them into
/// placeholders plus attachments, and the decoder puts them back, so a decoded binary event is
/// reported as ``Kind/event`` (or ``Kind/ack``) with its bytes in place.
public struct SocketPacket: Sendable, Hashable {
    /// The packet type (its digit on the wire).
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        /// CONNECT: joins a namespace (with an auth payload), or the server's accept.
        case connect = 0
        /// DISCONNECT: leaves a namespace.
        case disconnect = 1
        /// EVENT: `[name, arguments…]`, with an ack id when an acknowledgement is asked for.
        case event = 2
        /// ACK: the acknowledgement of the event with the same id.
        case ack = 3
        /// CONNECT_ERROR in v5, ERROR in v4.
        case connectError = 4
        /// BINARY_EVENT: an event with binary attachments.
        case binaryEvent = 5
        /// BINARY_ACK: an acknowledgement with binary attachments.
        case binaryAck = 6
    }

    /// What the packet is (connect, event, ack, …).
    public var kind: Kind
    /// The namespace, `/` by default. In v4 it may carry a query (`/admin?token=1`).
    public var namespace: String
    /// The ack id: present on an EVENT that asks for an ACK, and on that ACK.
    public var id: Int?
    /// The payload: CONNECT auth or reply, `[name, ...args]` for events, `[...args]` for acks,
    /// the error for CONNECT_ERROR; `nil` when the packet has none.
    public var data: JSONValue?

    /// A packet of `kind` for `namespace`, with an ack `id` and `data` where the kind has them.
    public init(kind: Kind, namespace: String = "/", id: Int? = nil, data: JSONValue? = nil) {
        self.kind = kind
        self.namespace = namespace
        self.id = id
        self.data = data
    }

    /// Event names the protocol reserves: emitting them is refused, receiving them is an error.
    public static let reservedEventNames: Set<String> = [
        "connect", "connect_error", "disconnect", "disconnecting", "newListener", "removeListener",
    ]
}

extension SocketPacket {
    /// An EVENT packet `[name, ...args]`.
    public static func event(_ name: String, _ args: [JSONValue], namespace: String = "/", id: Int? = nil) -> SocketPacket {
        var items: [JSONValue] = []
        items.reserveCapacity(1 + args.count)  // `[.string(name)] + args` would allocate twice
        items.append(.string(name))
        items.append(contentsOf: args)
        return SocketPacket(kind: .event, namespace: namespace, id: id, data: .array(items))
    }

    /// An ACK packet answering `id` with `args`.
    public static func ack(_ args: [JSONValue], namespace: String = "/", id: Int) -> SocketPacket {
        SocketPacket(kind: .ack, namespace: namespace, id: id, data: .array(args))
    }

    /// For an event: its name (a string, or a number written as text, as JavaScript names it).
    public var eventName: String? {
        guard kind == .event || kind == .binaryEvent, let first = data?[0] else { return nil }
        switch first {
        case .string(let name): return name
        case .number(let number):
            // A number too large for a double (`2[1e999]`) parses to infinity, as in JS, where
            // the event is then named "Infinity"; JSON has no such number and would write `null`.
            guard number.isFinite else { return number < 0 ? "-Infinity" : "Infinity" }
            return first.jsonString
        case .null, .bool, .array, .object, .binary: return nil
        }
    }

    /// For an event: the arguments after the name; for an ack: all its items.
    public var arguments: [JSONValue] {
        guard case .array(let items) = data else { return [] }
        switch kind {
        case .event, .binaryEvent: return Array(items.dropFirst())
        case .ack, .binaryAck: return items
        case .connect, .disconnect, .connectError: return []
        }
    }
}
