import SwitchboardCore
import Foundation
import SocketIO
import SocketIOServer

/// What a missed deadline prints: the step, then what every step, manager, socket and server
/// was waiting on at that moment.
enum SoakReport {
    static func hang(iteration: Int, scenario: String, deadline: Duration) -> [String] {
        var lines = ["HANG: iteration \(iteration), scenario \"\(scenario)\" did not finish within \(Self.seconds(deadline)) s"]
        lines += ActiveSteps.lines.map { "  " + $0 }
        lines += waitingOn().map { "  " + $0 }
        return lines
    }

    /// What every manager, socket and server in the process is doing and waiting on.
    static func waitingOn() -> [String] {
        Manager.live.all.flatMap(\.diagnostics) + SocketIOServer.live.all.map(\.diagnostics)
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f", duration.inSeconds)
    }
}

/// A scenario that missed its deadline.
struct SoakHang: Error {
    let scenario: String
}
