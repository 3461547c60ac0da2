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
        let clock = config.clock
        let timeout = config.probeTimeout
        Task { [weak self] in
            try? await clock.sleep(for: timeout)
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
        let (probe, probeID, polling) = inner.withLockedValue { inner in
            defer { inner.probe = nil; inner.probeID = -1 }
            // Released in order, under the lock, before any later send (kept if there is no
            // transport to take them: never dropped here).
            if !inner.held.isEmpty, let transport = inner.transport {
                transport.send(inner.held)
                inner.held = []
            }
            return (inner.probe, inner.probeID, inner.transport as? PollingTransport)
        }
        probe?.close()
        // Polling may already have paused for the switch that is not happening — or be about
        // to: the probe's answer and its timer race, and a pause that came after this resume
        // would hold every later packet forever (seen as a namespace that never connected).
        polling?.resume(probe: probeID)
    }

    /// Polling is idle: switch to the WebSocket, send `5`, then everything held, in order.
    private func pollingPaused() {
        let switched = inner.withLockedValue { inner -> (WebSocketTransport, PollingTransport?, [EnginePacket])? in
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
            // `5` and the held packets go out under the lock: no later send can overtake them.
            probe.send([.upgrade] + held)
            return (probe, polling, held)
        }
        guard let (_, polling, held) = switched else { return }
        configuration.logger.debug("upgraded to WebSocket", metadata: ["engineio.held": "\(held.count)"])
        polling?.discard()
        onEvent(.upgraded)
    }
}
