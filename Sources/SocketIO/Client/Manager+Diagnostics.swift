import Foundation
import NIOConcurrencyHelpers
package import SwitchboardCore

extension Manager {
    /// What the manager and its sockets are doing and waiting on, one line each: for the soak
    /// harness and for logs when something takes too long (never parsed).
    package var diagnostics: [String] {
        let (engine, sockets, reconnecting, wasOpen) = transition { state in
            (state.engine, state.sockets.all, state.machine.reconnection.isWaiting, state.machine.isOpen)
        }
        var lines = ["manager \(url.absoluteString): " + (engine?.diagnostics ?? "no engine")
            + (wasOpen ? ", was open" : "") + (reconnecting ? ", waiting to reconnect" : "")]
        for socket in sockets.sorted(by: { $0.namespace < $1.namespace }) {
            lines.append("  socket \(socket.namespace): " + socket.connection.diagnostics)
        }
        return lines
    }
}

extension Engine {
    /// The engine's state, transport and upgrade, one line.
    var diagnostics: String {
        let (line, transport) = transition { $0.diagnostics }
        return line + ((transport as? PollingTransport).map { ", polling \($0.diagnostics)" } ?? "")
    }
}

extension NamespaceConnection {
    /// The socket's status and what waits on it, one line.
    var diagnostics: String {
        let acks = pendingAcks.count
        return transition { state in
            "\(state.machine.status), \(acks) acks pending, "
                + "\(state.connectWaiters.count) connect() waiting, \(state.machine.sendBuffer.count) packets buffered, "
                + "\(state.retryCallers.count) at-least-once emits queued"
        }
    }
}

extension Manager {
    /// Every manager alive in the process, for diagnostics (the soak harness prints what each
    /// one is waiting on when a step misses its deadline).
    package static let live = LiveRegistry<Manager>()
}
