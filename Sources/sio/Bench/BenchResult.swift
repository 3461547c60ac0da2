import Foundation
import SocketIO

/// What one `sio bench` run measured.
struct BenchResult: Sendable {
    var target: String
    var clients: Int
    var events: Int
    var seconds: Double
    /// Ack round trips, in milliseconds, sorted ascending.
    var latencies: [Double]

    var eventsPerSecond: Double { seconds > 0 ? Double(events) / seconds : 0 }

    func percentile(_ p: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(latencies.count)).rounded(.up)) - 1
        return latencies[min(max(rank, 0), latencies.count - 1)]
    }

    var json: JSONValue {
        [
            "target": .string(target),
            "clients": .number(Double(clients)),
            "events": .number(Double(events)),
            "echo_events_per_second": .number(eventsPerSecond.rounded()),
            "ack_round_trips": .number(Double(latencies.count)),
            "ack_latency_ms": [
                "p50": .number(Self.round(percentile(50))),
                "p90": .number(Self.round(percentile(90))),
                "p99": .number(Self.round(percentile(99))),
                "max": .number(Self.round(latencies.last ?? 0)),
            ],
        ]
    }

    /// The summary table printed at the end of a run.
    var table: String {
        let rows: [(String, String)] = [
            ("target", target),
            ("clients", "\(clients)"),
            ("echo events", "\(events)"),
            ("echo throughput", "\(Self.grouped(eventsPerSecond)) events/s"),
            ("ack round trips", "\(latencies.count)"),
            ("ack p50", Self.ms(percentile(50))),
            ("ack p90", Self.ms(percentile(90))),
            ("ack p99", Self.ms(percentile(99))),
            ("ack max", Self.ms(latencies.last ?? 0)),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        let rule = String(repeating: "─", count: width + 2) + "┼" + String(repeating: "─", count: 28)
        var lines = [rule]
        for (name, value) in rows {
            lines.append(" " + name.padding(toLength: width, withPad: " ", startingAt: 0) + " │ " + value)
        }
        lines.append(rule)
        return lines.joined(separator: "\n")
    }

    private static func round(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
    private static func ms(_ value: Double) -> String { String(format: "%.3f ms", value) }
    private static func grouped(_ value: Double) -> String {
        let digits = String(Int(value.rounded()))
        var out = ""
        for (index, char) in digits.reversed().enumerated() {
            if index > 0 && index % 3 == 0 { out.append(",") }
            out.append(char)
        }
        return String(out.reversed())
    }
}
