// Message center benchmarks: routing one message by (key path, value) with 1, 100 and 10,000
// subscribers that each follow their own order number. Routing goes through an index, so the
// time per message should not grow with the subscriber count. See ../../README.md for results.
//
// Every benchmark runs an inner loop of 1,000 dispatches (`scalingFactor: .kilo`), so the scaled
// numbers the tool prints (marked `*`) are per message.

import Benchmark
import SocketIOProtocol
import Switchboard

/// A subscriber that does nothing, so the benchmark measures routing and delivery alone.
final class OrderScreen: MessageSubscriber {
    func receive(_ message: Message) async -> MessageDisposition { .continue }
}

/// Distinct ids cycle every `messageCount` messages; the duplicate window (the default, 1,000
/// ids) has forgotten an id long before it comes back, so no message is dropped as a duplicate.
let messageCount = 4_096

/// The message of SPEC.md with this id and order number.
func orderMessage(id: Int, order: Int) -> JSONValue {
    [
        "msg_id": .string("m-\(id)"),
        "msg_body": [
            "timestamp": 172831819, "type": "order_status_change", "title": "Order shipped",
            "sub_title": "", "content": "", "fmt_date": "07-22 18:22",
            "extra": ["order_no": .string("ORDER-\(order)")],
        ],
    ]
}

/// Where the next sample continues in the message list, so that ids keep cycling through all
/// `messageCount` of them across samples (samples run one after another).
final class Cursor: @unchecked Sendable {
    private var position = 0

    func next() -> Int {
        defer { position = position == messageCount - 1 ? 0 : position + 1 }
        return position
    }
}

/// A center with `subscribers` screens, screen k following `ORDER-k`, and messages that each
/// go to exactly one of them (spread over all of them).
func setUp(subscribers: Int) -> (MessageCenter, [OrderScreen], [JSONValue]) {
    let center = MessageCenter()
    let screens = (0..<subscribers).map { order in
        let screen = OrderScreen()
        center.subscribe(screen, to: .value(at: "msg_body.extra.order_no", equals: .string("ORDER-\(order)")))
        return screen
    }
    let messages = (0..<messageCount).map { id in orderMessage(id: id, order: (id &* 7919) % subscribers) }
    return (center, screens, messages)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 10_000
    )

    // Fixtures are built once, outside the measured closures (which run once per sample).
    for subscribers in [1, 100, 10_000] {
        let (center, screens, messages) = setUp(subscribers: subscribers)
        let cursor = Cursor()
        Benchmark("dispatch: \(subscribers) subscriber\(subscribers == 1 ? "" : "s")") { benchmark in
            // Sanity: each message reaches exactly one subscriber.
            let check = await center.dispatch(orderMessage(id: -Int.random(in: 1...Int.max), order: subscribers - 1))
            precondition(check.delivery?.recipients == 1, "the fixture message reached \(String(describing: check))")
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(await center.dispatch(messages[cursor.next()]))
            }
            benchmark.stopMeasurement()
            precondition(center.statistics.duplicates == 0, "a message was dropped as a duplicate")
            withExtendedLifetime(screens) {}
        }
    }

    // The whole receive path of the message center: JSON text in, parsed, routed, delivered.
    let (center, screens, messages) = setUp(subscribers: 10_000)
    let texts = messages.map(\.jsonString)
    let cursor = Cursor()
    Benchmark("dispatch text: 10000 subscribers") { benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(await center.dispatch(text: texts[cursor.next()]))
        }
        benchmark.stopMeasurement()
        precondition(center.statistics.duplicates == 0 && center.statistics.rejected == 0)
        withExtendedLifetime(screens) {}
    }
}
