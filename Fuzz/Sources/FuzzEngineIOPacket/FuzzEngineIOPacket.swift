import Foundation
import FuzzSupport
import SocketIOProtocol

/// One Engine.IO packet as a WebSocket message. Selector bit 0: v4 (0) or v3 (1); bit 1: a text
/// frame (0) or a binary frame (1). A packet that decodes must decode again, unchanged, from both
/// of its encodings (its WebSocket message and its text form). An `open` packet is also read as
/// the handshake a client reads from it, which must read back from its own JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let version: EngineIOVersion = input.selector & 1 == 0 ? .v4 : .v3
    let message: WebSocketMessage = input.selector & 2 == 0 ? .text(input.text) : .binary(.slice(of: input.body))
    guard let packet = try? EnginePacket.decode(message, version: version) else { return 0 }

    let frame = packet.webSocketMessage(version: version)
    invariant((try? EnginePacket.decode(frame, version: version)) == packet, "\(packet) → \(frame)")
    let text = packet.encodedText(version: version)
    invariant((try? EnginePacket.decode(text: text, version: version)) == packet, "\(packet) → \(text)")

    if case .open = packet, let handshake = try? EngineHandshake(packet: packet) {
        invariant((try? EngineHandshake(json: handshake.json)) == handshake, "\(handshake) → \(handshake.json)")
    }
    return 0
}
