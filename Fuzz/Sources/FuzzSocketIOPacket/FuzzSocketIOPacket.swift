import Foundation
import FuzzSupport
import SocketIOProtocol

/// The Engine.IO messages of one connection fed to one Socket.IO decoder. Selector bit 0: protocol
/// v5 (0) or v4 (1). The body is split at 0x00 bytes: the first piece is a text message; each
/// later piece is a text message if it starts with 0xFF (the rest of it), else a binary message.
///
/// After an error the decoder must hold no half-received packet. Every packet it returns must
/// encode and decode again to the same packet, except where the wire format itself cannot tell
/// the two apart (see ``survivesReencoding(_:version:)``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let version: SocketIOVersion = input.selector & 1 == 0 ? .v5 : .v4
    let pieces = input.pieces(separatedBy: 0)
    var decoder = SocketPacketDecoder(version: version)
    for (position, piece) in pieces.enumerated() {
        let packet: SocketPacket?
        do throws(ProtocolError) {
            if position == 0 {
                packet = try decoder.decode(text: String(decoding: piece, as: UTF8.self))
            } else if piece.first == 0xFF {
                packet = try decoder.decode(text: String(decoding: piece.dropFirst(), as: UTF8.self))
            } else {
                packet = try decoder.decode(binary: .slice(of: piece))
            }
        } catch {
            invariant(!decoder.isReconstructing, "decoder still reconstructing after \(error)")
            continue
        }
        if let packet { checkRoundTrip(packet, version: version, maxAttachments: decoder.maxAttachments) }
    }
    return 0
}

private func checkRoundTrip(_ packet: SocketPacket, version: SocketIOVersion, maxAttachments: Int) {
    guard survivesReencoding(packet, version: version) else { return }
    let encoded = SocketPacketEncoder.encode(packet)
    // A placeholder used twice comes back as two attachments; past the limit that is an error.
    guard encoded.attachments.count <= maxAttachments else { return }
    var decoder = SocketPacketDecoder(version: version, maxAttachments: maxAttachments)
    var again: SocketPacket?
    do throws(ProtocolError) {
        again = try decoder.decode(text: encoded.text)
        for attachment in encoded.attachments {
            again = try decoder.decode(binary: attachment)
        }
    } catch {
        invariant(false, "\(packet) → \(encoded) does not decode: \(error)")
    }
    var expected = packet
    expected.data = packet.data?.afterWriting
    invariant(again == expected, "\(packet) → \(encoded) → \(String(describing: again))")
}

/// Two packets the wire format cannot carry back, in socket.io-parser as here:
/// - an EVENT named by a number too large for a double (`2[1e999]`): the name is infinity, which
///   JSON writes as `null`, and `null` is no event name;
/// - a v4 CONNECT, which may carry any payload, with a number: `0` + `7` reads as ack id 7.
private func survivesReencoding(_ packet: SocketPacket, version: SocketIOVersion) -> Bool {
    if packet.kind == .event, case .number(let name)? = packet.data?[0], !name.isFinite { return false }
    guard version == .v4, packet.kind == .connect, case .number(let number)? = packet.data else { return true }
    return number.sign == .minus && number != 0
}
