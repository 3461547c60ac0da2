import Foundation
import SocketIO

/// How many operations a workload completed and in how long: the throughput figure of every
/// `sio bench` table (echo events, broadcasts).
struct Throughput: Sendable {
    var count: Int
    var seconds: Double

    /// Operations per second; 0 for a run too short to time.
    var perSecond: Double { seconds > 0 ? Double(count) / seconds : 0 }
}

/// Round trips timed one at a time, in milliseconds and sorted ascending: the latency figures of
/// every `sio bench` table (acks, probes).
struct Latencies: Sendable {
    var milliseconds: [Double]

    var count: Int { milliseconds.count }

    /// The slowest round trip; 0 when there were none.
    var max: Double { milliseconds.last ?? 0 }

    /// The `p`th percentile (nearest rank); 0 when there were none.
    func percentile(_ p: Double) -> Double {
        guard !milliseconds.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(count)).rounded(.up)) - 1
        return milliseconds[Swift.min(Swift.max(rank, 0), count - 1)]
    }

    /// `{"p50": …, …, "max": …}` for these percentiles, to the microsecond.
    func json(percentiles: [Int]) -> JSONValue {
        let figures = percentiles.map { ("p\($0)", JSONValue.number(Self.rounded(percentile(Double($0))))) }
        return .object(JSONObject(figures + [("max", .number(Self.rounded(max)))]))
    }

    /// A figure to the microsecond, for JSON.
    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// A figure as a table shows it: `0.123 ms`.
    static func text(_ milliseconds: Double) -> String { String(format: "%.3f ms", milliseconds) }
}
