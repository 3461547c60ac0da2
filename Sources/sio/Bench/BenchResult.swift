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
    /// Resident memory after every client connected, in MB.
    var residentMB: Double?
    /// CPU time and context switches of the measured process over the workload (echoes and
    /// acks), and what that process is.
    var usage: ProcessUsage?
    var usageScope: String = ""

    /// Echo events and ack round trips: the operations the usage is divided by.
    var operations: Int { events + latencies.count }

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
            "resident_mb": residentMB.map { .number(Self.round($0)) } ?? .null,
            "usage": usage.map { usage in
                [
                    "scope": .string(usageScope),
                    "cpu_user_s": .number(Self.round(usage.userSeconds)),
                    "cpu_system_s": .number(Self.round(usage.systemSeconds)),
                    "cpu_us_per_operation": .number(Self.round(usage.cpuSeconds * 1e6 / Double(max(operations, 1)))),
                    "voluntary_switches": .number(Double(usage.voluntarySwitches)),
                    "involuntary_switches": .number(Double(usage.involuntarySwitches)),
                    "switches_per_operation": .number(Self.round(Double(usage.contextSwitches) / Double(max(operations, 1)))),
                ] as JSONValue
            } ?? .null,
            "ack_latency_ms": [
                "p50": .number(Self.round(percentile(50))),
                "p90": .number(Self.round(percentile(90))),
                "p99": .number(Self.round(percentile(99))),
                "max": .number(Self.round(latencies.last ?? 0)),
            ],
        ]
    }

    /// The rows of the summary table, for this result.
    var rows: [(String, String)] {
        [
            ("clients", "\(clients)"),
            ("echo events", "\(events)"),
            ("echo throughput", "\(Self.grouped(eventsPerSecond)) events/s"),
            ("ack round trips", "\(latencies.count)"),
            ("ack p50", Self.ms(percentile(50))),
            ("ack p90", Self.ms(percentile(90))),
            ("ack p99", Self.ms(percentile(99))),
            ("ack max", Self.ms(latencies.last ?? 0)),
            ("resident memory", residentMB.map { String(format: "%.1f MB", $0) } ?? "–"),
            ("CPU user + system", usage.map { String(format: "%.3f + %.3f s", $0.userSeconds, $0.systemSeconds) } ?? "–"),
            ("CPU per operation", usage.map { String(format: "%.1f µs", $0.cpuSeconds * 1e6 / Double(max(operations, 1))) } ?? "–"),
            ("context switches (vol + invol)", usage.map { "\($0.voluntarySwitches) + \($0.involuntarySwitches)" } ?? "–"),
            ("switches per operation", usage.map { String(format: "%.3f", Double($0.contextSwitches) / Double(max(operations, 1))) } ?? "–"),
            ("measured", usage == nil ? "–" : usageScope),
        ]
    }

    /// The summary table: one column per client, rows aligned.
    static func table(target: String, columns: [(String, BenchResult)]) -> String {
        guard let first = columns.first?.1 else { return "" }
        let names = first.rows.map(\.0)
        let headers = ["metric"] + columns.map(\.0)
        var cells = [headers]
        for (index, name) in names.enumerated() {
            cells.append([name] + columns.map { $0.1.rows[index].1 })
        }
        let widths = headers.indices.map { column in cells.map { $0[column].count }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            row.enumerated().map { column, cell in
                column == 0 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: " │ ")
        }
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "─┼─")
        var lines = ["sio bench — \(target)", line(cells[0]), rule]
        lines.append(contentsOf: cells.dropFirst().map(line))
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
