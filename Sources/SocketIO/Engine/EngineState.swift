import SocketIOProtocol

/// Everything an ``Engine`` keeps, as one value: the session's ``EngineStateMachine`` and
/// ``UpgradeStateMachine``, the transport carrying the session and the upgrade's probe (each
/// known by an id, so a late event of a replaced one is recognised), the packets held while
/// polling pauses for the upgrade, and the heartbeat timer.
///
/// The engine runs one method per event under its lock and does what it hands back (start a
/// write, start or close a transport, arm a timer, report an event) after releasing it.
/// Packets are queued on a transport here (``EngineTransport/enqueue(_:afterPeerRead:)`` does
/// no I/O): that is what keeps sends in order across a transport switch.
struct EngineState {
    /// The heartbeat/open timer, the generation it was armed for, and whether its deadline
    /// passed (a suspended process wakes with timers that have not fired yet).
    typealias Timer = (generation: Int, cancel: @Sendable () -> Void, isDue: @Sendable () -> Bool)

    var machine: EngineStateMachine
    var upgrade = UpgradeStateMachine()
    var transport: (any EngineTransport)?
    /// What `transport` is (polling until an upgrade switches it).
    var kind: EngineTransportKind?
    var transportID = 0
    var probe: WebSocketTransport?
    var probeID = -1
    var nextTransportID = 0
    /// Packets held while polling pauses for the upgrade.
    var held = FencedPackets()
    /// The transport after the session ended, so a caller can wait for its socket to close.
    var retired: (any EngineTransport)?
    var timer: Timer?

    init(version: EngineIOVersion) {
        machine = EngineStateMachine(version: version)
    }

    /// The handshake, once open.
    var handshake: EngineHandshake? {
        if case .open(let handshake, _) = machine.state { return handshake }
        return nil
    }

    // MARK: - Opening

    /// The session starts on a transport of `kind`: its generation (for the open timer) and the
    /// transport's id, or `nil` when it is not starting.
    mutating func startOpening(on kind: EngineTransportKind) -> (generation: Int, id: Int)? {
        guard case .openTransport(let generation) = machine.start() else { return nil }
        nextTransportID += 1
        transportID = nextTransportID
        self.kind = kind
        return (generation, transportID)
    }

    /// Installs the transport made for id `id`, queuing what was held before it existed; `nil`
    /// when the session closed or moved on meanwhile (close `made`).
    mutating func install(_ made: any EngineTransport, id: Int) -> (write: TransportWrite?, Void)? {
        if machine.state == .closed || transportID != id { return nil }
        transport = made
        defer { held = FencedPackets() }
        return (held.enqueue(on: made), ())
    }

    // MARK: - Sending

    /// Queues packets on the transport (or holds them while the upgrade pauses polling).
    /// `overdue` is a heartbeat timer whose deadline passed while the process was suspended:
    /// the engine acts on it first.
    mutating func send(_ packets: [EnginePacket], afterPeerRead: Bool) -> (sent: Bool, overdue: Int?, write: TransportWrite?) {
        if let timer, timer.isDue() { return (false, timer.generation, nil) }
        guard machine.isOpen else { return (false, nil, nil) }
        guard !upgrade.holdsPackets, let transport else {
            held.append(packets, fenced: afterPeerRead)
            return (true, nil, nil)
        }
        return (true, nil, transport.enqueue(packets, afterPeerRead: afterPeerRead))
    }

    /// Whether the timer of generation `overdue` is still the one armed and still due.
    func isStillDue(_ overdue: Int) -> Bool {
        timer.map { $0.generation == overdue && $0.isDue() } ?? false
    }

    // MARK: - Receiving

    /// What a transport's event is to the engine.
    enum Step {
        /// From a transport the engine no longer uses.
        case stale
        /// From the upgrade's probe.
        case probe
        /// A packet of the active transport, and the machine's answer to it.
        case received(EnginePacket, EngineStateMachine.ReceiveAction)
        /// The active transport ended.
        case ended
    }

    /// Finds what transport `id` is and, for a packet of the active one, runs its transition.
    mutating func step(for event: TransportEvent, from id: Int) -> Step {
        guard id == transportID else { return probeID == id ? .probe : .stale }
        guard case .packet(let packet) = event else { return .ended }
        return .received(packet, machine.received(packet))
    }

    /// Transport `id` ended; only the active transport's end counts.
    mutating func transportEnded(_ reason: EngineCloseReason, from id: Int) -> EngineStateMachine.CloseAction {
        guard transportID == id else { return .none }
        return machine.transportEnded(reason)
    }

    // MARK: - Closing

    /// Takes the transports out (the active one kept as `retired`), the timer, and the packets
    /// held for the upgrade, for the engine to close, cancel, and send ahead of its close packet.
    mutating func detach() -> (transport: (any EngineTransport)?, probe: WebSocketTransport?, timer: Timer?, held: [EnginePacket]) {
        defer {
            retired = transport ?? retired
            transport = nil
            transportID = -1
            probe = nil
            timer = nil
            held = FencedPackets()
        }
        // Closing: they go out ahead of the close packet, fences or not.
        return (transport, probe, timer, held.packets)
    }

    /// Keeps the newest timer (two threads may arm at once, and an older timer must not replace
    /// a newer one); returns the one to cancel.
    mutating func keep(_ new: Timer) -> (@Sendable () -> Void)? {
        if let current = timer, current.generation > new.generation { return new.cancel }
        defer { timer = new }
        return timer?.cancel
    }

    // MARK: - The upgrade

    /// The probe's id when an upgrade starts now.
    mutating func startUpgrade() -> Int? {
        nextTransportID += 1
        let id = nextTransportID
        guard upgrade.start(probe: id) == .openProbe else { return nil }
        probeID = id
        return id
    }

    /// Installs probe `id`; `false` when the upgrade or the session ended meanwhile.
    mutating func install(probe made: WebSocketTransport, id: Int) -> Bool {
        guard probeID == id, machine.isOpen else { return false }
        probe = made
        return true
    }

    /// The upgrade is abandoned: what polling held goes out on it, in order, before any later
    /// send (kept if there is no transport to take them: never dropped here).
    mutating func abandonProbe() -> (probe: WebSocketTransport?, probeID: Int, polling: PollingTransport?, write: TransportWrite?) {
        defer { probe = nil; probeID = -1 }
        var write: TransportWrite?
        if !held.isEmpty, let transport {
            write = held.enqueue(on: transport)
            held = FencedPackets()
        }
        return (probe, probeID, transport as? PollingTransport, write)
    }

    /// Polling paused: the session switches to the probe, `5` and everything held queued on it
    /// first; `nil` when the switch is not happening.
    mutating func switchToProbe() -> (write: TransportWrite?, polling: PollingTransport?, held: Int)? {
        guard case .switchTo(let id) = upgrade.pollingPaused(), let probe, probeID == id, machine.isOpen else { return nil }
        let polling = transport as? PollingTransport
        var packets = polling?.takeUnsent() ?? FencedPackets()
        packets.append(held)
        held = FencedPackets()
        transport = probe
        kind = .websocket
        transportID = id
        self.probe = nil
        probeID = -1
        return (packets.enqueue(on: probe, after: [.upgrade]), polling, packets.count)
    }

    /// The engine's state, transport and upgrade, one line (and the transport, for its own).
    var diagnostics: (line: String, transport: (any EngineTransport)?) {
        ("engine \(machine.state), transport \(kind.map { "\($0)" } ?? "none")"
            + ", upgrade \(upgrade.state)"
            + (probe != nil ? ", probing WebSocket" : "")
            + (held.isEmpty ? "" : ", \(held.count) packets held for the upgrade"), transport)
    }
}
