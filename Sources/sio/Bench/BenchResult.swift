import Foundation
import SocketIO

/// What one `sio bench` run measured.
struct BenchResult: Sendable {
    var target: String
    var clients: Int
    var echoes: Throughput
    var acks: Latencies
    /// Resident memory after every client connected, in MB.
    var residentMB: Double?
    /// CPU time and context switches of the measured process over the workload (echoes and
    /// acks), and what that process is.
    var usage: ProcessUsage?
    var usageScope: String = ""
    /// Where the workload's tasks ran (``ProcessThreads/taskThreads``); empty for another
    /// process's figures.
    var taskThreads: String = ""

    /// Echo events and ack round trips: the operations the usage is divided by.
    var operations: Int { echoes.count + acks.count }

    var json: JSONValue {
        [
            "target": .string(target),
            "clients": .number(Double(clients)),
            "events": .number(Double(echoes.count)),
            "echo_events_per_second": .number(echoes.perSecond.rounded()),
            "ack_round_trips": .number(Double(acks.count)),
            "resident_mb": residentMB.map { .number(Latencies.rounded($0)) } ?? .null,
            "usage": usage.map { usage in
                [
                    "scope": .string(usageScope),
                    "task_threads": taskThreads.isEmpty ? .null : .string(taskThreads),
                    "cpu_user_s": .number(Latencies.rounded(usage.userSeconds)),
                    "cpu_system_s": .number(Latencies.rounded(usage.systemSeconds)),
                    "cpu_us_per_operation": .number(Latencies.rounded(usage.cpuSeconds * 1e6 / Double(max(operations, 1)))),
                    "voluntary_switches": .number(Double(usage.voluntarySwitches)),
                    "involuntary_switches": .number(Double(usage.involuntarySwitches)),
                    "switches_per_operation": .number(Latencies.rounded(Double(usage.contextSwitches) / Double(max(operations, 1)))),
                ] as JSONValue
            } ?? .null,
            "ack_latency_ms": acks.json(percentiles: [50, 90, 99]),
        ]
    }

    /// The rows of the summary table, for this result.
    var rows: [(String, String)] {
        [
            ("clients", "\(clients)"),
            ("echo events", "\(echoes.count)"),
            ("echo throughput", "\(Self.grouped(echoes.perSecond)) events/s"),
            ("ack round trips", "\(acks.count)"),
            ("ack p50", Latencies.text(acks.percentile(50))),
            ("ack p90", Latencies.text(acks.percentile(90))),
            ("ack p99", Latencies.text(acks.percentile(99))),
            ("ack max", Latencies.text(acks.max)),
            ("resident memory", residentMB.map { String(format: "%.1f MB", $0) } ?? "–"),
            ("CPU user + system", usage.map { String(format: "%.3f + %.3f s", $0.userSeconds, $0.systemSeconds) } ?? "–"),
            ("CPU per operation", usage.map { String(format: "%.1f µs", $0.cpuSeconds * 1e6 / Double(max(operations, 1))) } ?? "–"),
            ("context switches (vol + invol)", usage.map { "\($0.voluntarySwitches) + \($0.involuntarySwitches)" } ?? "–"),
            ("switches per operation", usage.map { String(format: "%.3f", Double($0.contextSwitches) / Double(max(operations, 1))) } ?? "–"),
            ("measured", usage == nil ? "–" : usageScope),
            ("tasks ran on", taskThreads.isEmpty ? "–" : taskThreads),
        ]
    }

    /// The summary table: one column per client, rows aligned.
    static func table(target: String, columns: [(String, BenchResult)]) -> String {
        guard let first = columns.first?.1 else { return "" }
        let rows = first.rows.indices.map { index in [first.rows[index].0] + columns.map { $0.1.rows[index].1 } }
        return MetricTable.render(title: "sio bench — \(target)", headers: ["metric"] + columns.map(\.0), rows: rows)
    }

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
