import Foundation
import SocketIOProtocol
import Testing

/// Numbers read from the wire fit the platform's `Int`, 64 bits or 32 (watchOS on arm64_32):
/// where they do not, the input is refused with an error, never trapped on.
@Suite struct IntegerWidthTests {
    /// The heartbeat bound is positive and the client's timer, `pingInterval + pingTimeout`,
    /// fits in `Int` at the bound (2^31 was `Int.min` on 32 bits: every handshake was refused).
    @Test func theLongestHeartbeatAndItsSumFitInInt() throws {
        let limit = EngineHandshake.longestHeartbeatMilliseconds
        #expect(limit > 0)
        #expect(!limit.addingReportingOverflow(limit).overflow)
        let json = #"{"sid":"s","upgrades":[],"pingInterval":\#(limit),"pingTimeout":\#(limit)}"#
        #expect(try EngineHandshake(json: json).pingInterval == limit)
    }

    /// An ack id with more digits than `Int` holds is refused (the 15-digit bound alone let ten
    /// digits through, which trap on 32 bits).
    @Test func anAckIDPastIntIsRefused() throws {
        var decoder = SocketPacketDecoder(version: .v5)
        let digits = String(repeating: "9", count: String(Int.max).count)
        #expect(throws: ProtocolError.self) { var decoder = SocketPacketDecoder(version: .v5); _ = try decoder.decode(text: "3\(digits)[]") }
        // The longest id taken: 15 digits, or what `Int` holds.
        let largest = min(Int(clamping: Int64(999_999_999_999_999)), Int.max / 10)
        let fits = try decoder.decode(text: "3\(largest)[]")
        #expect(fits?.id == largest)
    }
}
