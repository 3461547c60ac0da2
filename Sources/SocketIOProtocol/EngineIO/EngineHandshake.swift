/// The data of the server's `open` packet.
///
/// Servers order the keys differently (python puts `pingTimeout` first), so this is parsed as
/// JSON, never matched as text. `sid`, `pingInterval` and `pingTimeout` are required.
public struct EngineHandshake: Sendable, Hashable {
    /// The session id, echoed as `sid` on every later request.
    public var sid: String
    /// Transports the client may upgrade to (`["websocket"]` on a polling session).
    public var upgrades: [String]
    /// v4: the server's ping period; v3: the client's. Milliseconds.
    public var pingInterval: Int
    /// How long to wait for the heartbeat's other half. Milliseconds.
    public var pingTimeout: Int
    /// The largest polling body the server accepts, in bytes (v4; absent from python 3.x).
    public var maxPayload: Int?

    /// A handshake with these fields (what the server announces in its `open` packet).
    public init(sid: String, upgrades: [String], pingInterval: Int, pingTimeout: Int, maxPayload: Int?) {
        self.sid = sid
        self.upgrades = upgrades
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.maxPayload = maxPayload
    }

    /// The longest `pingInterval` or `pingTimeout` a handshake may announce, in milliseconds:
    /// 2^31 (24.8 days), about what JavaScript's timers hold. A client refuses a handshake with
    /// more; a server announces no more (a longer setting is taken as this). Where `Int` has 32
    /// bits (watchOS on arm64_32) it is `Int.max / 2` (12.4 days), so that `pingInterval +
    /// pingTimeout` still fits (2^31 did not even fit alone there: it refused every handshake).
    public static let longestHeartbeatMilliseconds = min(Int(clamping: Int64(1) << 31), Int.max / 2)
    /// ``longestHeartbeatMilliseconds`` as a duration.
    public static let longestHeartbeat = Duration.milliseconds(longestHeartbeatMilliseconds)

    /// Parses the JSON data of an `open` packet.
    public init(json: String) throws(ProtocolError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: json)
        } catch {
            throw .invalidHandshake("not JSON: \(error)")
        }
        guard let sid = value["sid"]?.stringValue, !sid.isEmpty else { throw .invalidHandshake("missing sid") }
        guard let interval = value["pingInterval"]?.intValue, interval > 0 else {
            throw .invalidHandshake("missing pingInterval")
        }
        guard let timeout = value["pingTimeout"]?.intValue, timeout > 0 else {
            throw .invalidHandshake("missing pingTimeout")
        }
        // Bounded, so a hostile handshake cannot overflow `pingInterval + pingTimeout`.
        let limit = Self.longestHeartbeatMilliseconds
        guard interval <= limit, timeout <= limit else { throw .invalidHandshake("pingInterval or pingTimeout out of range") }
        let upgrades = value["upgrades"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let maxPayload = value["maxPayload"]?.intValue.flatMap { $0 > 0 ? $0 : nil }
        self.init(sid: sid, upgrades: upgrades, pingInterval: interval, pingTimeout: timeout, maxPayload: maxPayload)
    }

    /// Reads the handshake from the first packet of a session, which must be `open`.
    public init(packet: EnginePacket) throws(ProtocolError) {
        guard case .open(let json) = packet else {
            throw .invalidHandshake("expected the open packet, got type \(packet.typeDigit)")
        }
        try self.init(json: json)
    }

    /// The handshake as the JSON text a server sends (keys in the JS server's order).
    public var json: String {
        var object: JSONObject = [
            "sid": .string(sid),
            "upgrades": .array(upgrades.map(JSONValue.string)),
            "pingInterval": .number(Double(pingInterval)),
            "pingTimeout": .number(Double(pingTimeout)),
        ]
        if let maxPayload { object["maxPayload"] = .number(Double(maxPayload)) }
        return JSONValue.object(object).jsonString
    }
}
