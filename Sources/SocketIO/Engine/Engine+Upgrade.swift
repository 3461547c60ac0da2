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
        guard let id = transition({ $0.startUpgrade() }) else { return }
        let probe = makeWebSocket(sid: handshake.sid, id: id)
        guard transition({ $0.install(probe: probe, id: id) }) else {
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
            let action = transition { $0.upgrade.probeReceived(packet, from: id) }
            switch action {
            case .none:
                return
            case .abandonProbe:
                abandonProbe(why: "unexpected answer to the probe")
            case .pausePolling:
                guard let polling = transition({ $0.transport }) as? PollingTransport else {
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
        let action = transition { $0.upgrade.probeFailed(id) }
        switch action {
        case .abandonProbe: abandonProbe(why: why)
        case .pausePolling, .none: return
        }
    }

    /// Drops the probe and carries on polling (releasing anything held meanwhile).
    private func abandonProbe(why: String) {
        configuration.logger.debug("upgrade abandoned, staying on polling", metadata: ["engineio.why": "\(why)"])
        let (probe, probeID, polling, write) = transition { $0.abandonProbe() }
        write?.start()
        probe?.close()
        // Polling may already have paused for the switch that is not happening — or be about
        // to: the probe's answer and its timer race, and a pause that came after this resume
        // would hold every later packet forever (seen as a namespace that never connected).
        polling?.resume(probe: probeID)
    }

    /// Polling is idle: switch to the WebSocket, send `5`, then everything held, in order.
    private func pollingPaused() {
        // `5` and the held packets are queued under the lock: no later send can overtake them.
        guard let (write, polling, held) = transition({ $0.switchToProbe() }) else { return }
        write?.start()
        configuration.logger.debug("upgraded to WebSocket", metadata: ["engineio.held": "\(held)"])
        polling?.discard()
        onEvent(.upgraded)
    }
}
