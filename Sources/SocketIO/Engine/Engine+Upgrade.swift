import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol

extension Engine {
    /// Starts the WebSocket probe when the session opened on polling and may upgrade.
    func maybeStartUpgrade(_ handshake: EngineHandshake) {
        let config = configuration
        guard config.upgrade, config.transports.contains(.websocket), handshake.upgrades.contains("websocket") else {
            return
        }
        let id = inner.withLockedValue { inner -> Int? in
            inner.nextTransportID += 1
            let id = inner.nextTransportID
            guard inner.upgrade.start(probe: id) == .openProbe else { return nil }
            inner.probeID = id
            return id
        }
        guard let id else { return }
        let probe = makeWebSocket(sid: handshake.sid, id: id)
        let current = inner.withLockedValue { inner -> Bool in
            guard inner.probeID == id, inner.machine.isOpen else { return false }
            inner.probe = probe
            return true
        }
        guard current else {
            probe.close()
            return
        }
        probe.start()
        probe.send([.ping("probe")])
        // An event-loop timer on the real clock (no task sleeping per upgrade); a probe that
        // already finished makes it a no-op.
        _ = timeline.schedule(config.probeTimeout) { [weak self] in
            self?.probeFailed(id, why: "no answer to the probe in time")
        }
    }

    func handleProbeEvent(_ event: TransportEvent, from id: Int) {
        switch event {
        case .packet(let packet):
            let action = inner.withLockedValue { $0.upgrade.probeReceived(packet, from: id) }
            switch action {
            case .none:
                return
            case .abandonProbe:
                abandonProbe(why: "unexpected answer to the probe")
            case .pausePolling:
                guard let polling = inner.withLockedValue({ $0.transport }) as? PollingTransport else {
                    abandonProbe(why: "the session is not on polling")
                    return
                }
                polling.pause(probe: id) { [weak self] in self?.pollingPaused() }
            }
        case .ended(let reason):
            probeFailed(id, why: "\(reason)")
        }
    }

    private func probeFailed(_ id: Int, why: String) {
        let action = inner.withLockedValue { $0.upgrade.probeFailed(id) }
        switch action {
        case .abandonProbe: abandonProbe(why: why)
        case .pausePolling, .none: return
        }
    }

    /// Drops the probe and carries on polling (releasing anything held meanwhile).
    private func abandonProbe(why: String) {
        configuration.logger.debug("upgrade abandoned, staying on polling", metadata: ["engineio.why": "\(why)"])
        let (probe, probeID, polling, write) = inner.withLockedValue { inner in
            defer { inner.probe = nil; inner.probeID = -1 }
            // Queued in order, under the lock, before any later send (kept if there is no
            // transport to take them: never dropped here).
            var write: TransportWrite?
            if !inner.held.isEmpty, let transport = inner.transport {
                write = transport.enqueue(inner.held, afterPeerRead: false)
                inner.held = []
            }
            return (inner.probe, inner.probeID, inner.transport as? PollingTransport, write)
        }
        write?.start()
        probe?.close()
        // Polling may already have paused for the switch that is not happening — or be about
        // to: the probe's answer and its timer race, and a pause that came after this resume
        // would hold every later packet forever (seen as a namespace that never connected).
        polling?.resume(probe: probeID)
    }

    /// Polling is idle: switch to the WebSocket, send `5`, then everything held, in order.
    private func pollingPaused() {
        let switched = inner.withLockedValue { inner -> (TransportWrite?, PollingTransport?, [EnginePacket])? in
            guard case .switchTo(let id) = inner.upgrade.pollingPaused(), let probe = inner.probe,
                  inner.probeID == id, inner.machine.isOpen else { return nil }
            let polling = inner.transport as? PollingTransport
            let held = (polling?.takeUnsent() ?? []) + inner.held
            inner.held = []
            inner.transport = probe
            inner.kind = .websocket
            inner.transportID = id
            inner.probe = nil
            inner.probeID = -1
            // `5` and the held packets are queued under the lock: no later send can overtake them.
            return (probe.enqueue([.upgrade] + held, afterPeerRead: false), polling, held)
        }
        guard let (write, polling, held) = switched else { return }
        write?.start()
        configuration.logger.debug("upgraded to WebSocket", metadata: ["engineio.held": "\(held.count)"])
        polling?.discard()
        onEvent(.upgraded)
    }
}
