// Codec benchmarks: the per-event cost of turning WebSocket frames into handler arguments and
// back, and our JSON parser/writer against Foundation's. See ../../README.md for the results.
//
// Every benchmark runs an inner loop of 1,000 operations (`scalingFactor: .kilo`), so the
// scaled numbers the tool prints (marked `*`) are per operation.

import Benchmark
import Foundation
import SocketIOProtocol

// MARK: - Fixtures

/// The event payload: the JSON body of the text frame, without the Engine.IO `4` and
/// Socket.IO `2` type digits. Key order matches what our writer produces, so encoding the
/// decoded value gives the same bytes back (checked below).
let eventBody = #"["order_status_change",{"msg_id":"00544","msg_body":{"timestamp":172831819,"type":"order_status_change","title":"Order shipped","fmt_date":"07-22 18:22","extra":{"order_no":"TAINIUBILE1234","qty":3,"express":true}}}]"#

/// A WebSocket text frame as it comes off the wire: Engine.IO MESSAGE (`4`) + Socket.IO EVENT (`2`).
let eventFrame: [UInt8] = Array(("42" + eventBody).utf8)

/// The same JSON body as bytes, the input of every `json parse:` benchmark.
let eventBodyData = Data(eventBody.utf8)

/// The parsed event, as a handler would get it: its name and its arguments.
let parsedBody: JSONValue = try! JSONValue(parsing: eventBody)
let eventName: String = parsedBody[0]!.stringValue!
let eventArgs: [JSONValue] = Array(parsedBody.arrayValue!.dropFirst())

/// Two 1 KiB attachments.
let attachment0 = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0) })
let attachment1 = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })

/// The BINARY_EVENT header frame (`4` + `52-...`) and its two binary frames (Engine.IO v4:
/// binary WebSocket frames carry the bytes alone).
let binaryHeaderFrame: [UInt8] = Array(
    (#"452-["file_chunk",{"name":"report.bin","offset":0,"data":{"_placeholder":true,"num":0}},{"_placeholder":true,"num":1}]"#)
        .utf8)
let binaryEventName = "file_chunk"
let binaryEventArgs: [JSONValue] = [
    ["name": "report.bin", "offset": 0, "data": .binary(attachment0)],
    .binary(attachment1),
]

let metrics: [BenchmarkMetric] = [.wallClock, .cpuTotal, .mallocCountTotal, .throughput]

// MARK: - Hot paths (shared by the sanity checks and the benchmarks)

/// WebSocket text-frame bytes -> handler arguments.
@inline(__always)
func decodeEvent(_ frame: [UInt8], with decoder: inout SocketPacketDecoder) throws -> [JSONValue] {
    let text = String(decoding: frame, as: UTF8.self)
    guard case .message(let message) = try EnginePacket.decode(text: text, version: .v4),
        let packet = try decoder.decode(text: message)
    else { fatalError("not a complete event") }
    return packet.arguments
}

/// Event name and arguments -> WebSocket text-frame bytes.
@inline(__always)
func encodeEvent(_ name: String, _ args: [JSONValue]) -> [UInt8] {
    let encoded = SocketPacketEncoder.encode(.event(name, args))
    let frame = EnginePacket.message(encoded.text).encodedText(version: .v4)
    return Array(frame.utf8)
}

/// Header text frame + binary frames -> handler arguments (bytes back in place).
@inline(__always)
func decodeBinaryEvent(
    _ header: [UInt8], _ attachments: [Data], with decoder: inout SocketPacketDecoder
) throws -> [JSONValue] {
    let text = String(decoding: header, as: UTF8.self)
    guard case .message(let message) = try EnginePacket.decode(text: text, version: .v4),
        try decoder.decode(text: message) == nil
    else { fatalError("not a binary header") }
    var result: SocketPacket?
    for attachment in attachments {
        guard case .binaryMessage(let bytes) = try EnginePacket.decode(binaryFrame: attachment, version: .v4)
        else { fatalError("not a binary message") }
        result = try decoder.decode(binary: bytes)
    }
    guard let packet = result else { fatalError("binary event incomplete") }
    return packet.arguments
}

/// Event name and arguments with binary -> header text frame + binary frames.
@inline(__always)
func encodeBinaryEvent(_ name: String, _ args: [JSONValue]) -> [WebSocketMessage] {
    SocketPacketEncoder.encode(.event(name, args)).enginePackets.map { $0.webSocketMessage(version: .v4) }
}

// MARK: - Benchmarks

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: metrics,
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 10_000
    )

    // Sanity checks: the fixtures round-trip, so every benchmark measures real work.
    do {
        var decoder = SocketPacketDecoder(version: .v5)
        precondition(try! decodeEvent(eventFrame, with: &decoder) == eventArgs)
        precondition(encodeEvent(eventName, eventArgs) == eventFrame, "encoded frame differs from the fixture")
        precondition(try! decodeBinaryEvent(binaryHeaderFrame, [attachment0, attachment1], with: &decoder) == binaryEventArgs)
        let messages = encodeBinaryEvent(binaryEventName, binaryEventArgs)
        precondition(messages == [.text(String(decoding: binaryHeaderFrame, as: UTF8.self)), .binary(attachment0), .binary(attachment1)])
    }
    print("Codec fixtures: event frame \(eventFrame.count) B, JSON body \(eventBodyData.count) B, "
        + "binary header frame \(binaryHeaderFrame.count) B + 2 x \(attachment0.count) B attachments")

    // 1-3. Socket.IO event codec.

    Benchmark("decode event (200 B frame)") { benchmark in
        var decoder = SocketPacketDecoder(version: .v5)
        let frame = eventFrame
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try decodeEvent(frame, with: &decoder))
        }
    }

    Benchmark("encode event (200 B)") { benchmark in
        let name = eventName
        let args = eventArgs
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(encodeEvent(name, args))
        }
    }

    Benchmark("decode binary event (2 attachments)") { benchmark in
        var decoder = SocketPacketDecoder(version: .v5)
        let header = binaryHeaderFrame
        let attachments = [attachment0, attachment1]
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try decodeBinaryEvent(header, attachments, with: &decoder))
        }
    }

    Benchmark("encode binary event") { benchmark in
        let name = binaryEventName
        let args = binaryEventArgs
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(encodeBinaryEvent(name, args))
        }
    }

    // 4. JSON parse: the same ~200-byte body, from the same `Data`, into each library's model.

    Benchmark("json parse: switchboard") { benchmark in
        let data = eventBodyData
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try JSONValue(parsing: data))
        }
    }

    Benchmark("json parse: switchboard (String)") { benchmark in
        let text = eventBody
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try JSONValue(parsing: text))
        }
    }

    Benchmark("json parse: JSONSerialization") { benchmark in
        let data = eventBodyData
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try JSONSerialization.jsonObject(with: data))
        }
    }

    Benchmark("json parse: JSONDecoder") { benchmark in
        let data = eventBodyData
        let decoder = JSONDecoder()  // reused: the cheapest way to use it
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try decoder.decode(JSONValue.self, from: data))
        }
    }

    // JSON write: the same value, from each library's model, to text.

    Benchmark("json write: switchboard") { benchmark in
        let value = parsedBody
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(value.jsonString)
        }
    }

    Benchmark("json write: JSONSerialization") { benchmark in
        let object = try JSONSerialization.jsonObject(with: eventBodyData)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try JSONSerialization.data(withJSONObject: object))
        }
    }

    Benchmark("json write: JSONEncoder") { benchmark in
        let value = parsedBody
        let encoder = JSONEncoder()  // reused
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try encoder.encode(value))
        }
    }
}
