import Foundation
import NIOCore
import SocketIOProtocol

/// One Engine.IO packet ready for any transport: the bytes of a WebSocket message.
///
/// Text frames hold the packet's text form (`42["chat","hi"]`, `2`, `3probe`); binary frames
/// hold the raw bytes of a binary `message`. A broadcast encodes its packet once into frames and
/// hands the same buffers to every recipient: `ByteBuffer` is copy-on-write, so recipients share
/// the storage. Polling bodies are assembled from the same frames (``PollingBody``).
struct EngineFrame: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case text
        case binary
    }

    var kind: Kind
    var bytes: ByteBuffer

    /// The size this frame adds to an outbound queue.
    var size: Int { bytes.readableBytes }

    static func text(_ text: String) -> EngineFrame {
        EngineFrame(kind: .text, bytes: ByteBuffer(string: text))
    }

    /// The control packets the server writes.
    static let ping = EngineFrame.text("2")
    static let probeAnswer = EngineFrame.text("3probe")
    static let noop = EngineFrame.text("6")
    static let close = EngineFrame.text("1")

    /// An Engine.IO `message` carrying `text` (the `4` prefix added here).
    static func message(_ text: String) -> EngineFrame {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(text.utf8.count + 1)
        buffer.writeInteger(UInt8(ascii: "4"))
        buffer.writeString(text)
        return EngineFrame(kind: .text, bytes: buffer)
    }

    /// The frames of an encoded Socket.IO packet: its text, then one binary frame per attachment.
    static func frames(of encoded: EncodedSocketPacket) -> [EngineFrame] {
        var frames = [EngineFrame.message(encoded.text)]
        frames.reserveCapacity(1 + encoded.attachments.count)
        for attachment in encoded.attachments {
            frames.append(EngineFrame(kind: .binary, bytes: ByteBuffer(bytes: attachment)))
        }
        return frames
    }

    /// The frames of a Socket.IO packet, encoded once.
    static func frames(of packet: SocketPacket) -> [EngineFrame] {
        frames(of: SocketPacketEncoder.encode(packet))
    }
}

/// Builds v4 polling bodies: frames joined by the record separator, binary as `b` + base64.
enum PollingBody {
    /// A GET's answer: `frames` as a session of `version` encodes a polling body, and whether
    /// it is binary (v3's format for a client without `b64=1`).
    static func encode(_ frames: [EngineFrame], for session: EngineSession) -> (body: ByteBuffer, binary: Bool) {
        switch session.version {
        case .v4: (encode(frames), false)
        case .v3: encodeV3(frames, base64: session.base64)
        }
    }

    static let recordSeparator: UInt8 = 0x1E

    static func encode(_ frames: some Collection<EngineFrame>) -> ByteBuffer {
        var body = ByteBuffer()
        body.reserveCapacity(frames.reduce(0) { $0 + $1.size + 1 })
        var first = true
        for frame in frames {
            if !first { body.writeInteger(recordSeparator) }
            first = false
            switch frame.kind {
            case .text:
                var bytes = frame.bytes
                body.writeBuffer(&bytes)
            case .binary:
                body.writeInteger(UInt8(ascii: "b"))
                body.writeString(Data(frame.bytes.readableBytesView).base64EncodedString())
            }
        }
        return body
    }
}

extension PollingBody {
    /// A v3 polling body: text records `<length>:<packet>` (UTF-16 lengths, binary as `b4` +
    /// base64), or — for a client without `b64=1`, when a frame is binary — v3's binary format.
    /// `binary` says which (the response's content type).
    static func encodeV3(_ frames: some Collection<EngineFrame>, base64: Bool) -> (body: ByteBuffer, binary: Bool) {
        let packets = frames.map { frame -> EnginePacket in
            switch frame.kind {
            case .binary: .binaryMessage(Data(frame.bytes.readableBytesView))
            case .text: Self.packet(ofText: String(buffer: frame.bytes))
            }
        }
        if !base64, packets.contains(where: { if case .binaryMessage = $0 { true } else { false } }) {
            return (ByteBuffer(bytes: PollingPayload.encodeBinaryV3(packets)), true)
        }
        return (ByteBuffer(string: PollingPayload.encode(packets, version: .v3)), false)
    }

    /// A text frame as the packet it encodes (the frames the server makes always parse).
    private static func packet(ofText text: String) -> EnginePacket {
        (try? EnginePacket.decode(text: text, version: .v3)) ?? .message(String(text.dropFirst()))
    }
}
