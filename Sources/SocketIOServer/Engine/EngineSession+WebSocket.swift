import Logging
import Foundation
import SocketIOProtocol

extension EngineSession {
    /// A text message from `writer`'s WebSocket.
    func receive(text: String, from writer: WebSocketWriter) async {
        // Messages (`4…`) are the hot path: hand the Socket.IO text on without copying it.
        if text.utf8.first == UInt8(ascii: "4") {
            guard let client = messageTarget(from: writer) else { return }
            await client.receive(text: text.dropFirst())
            return
        }
        let packet: EnginePacket
        do {
            packet = try EnginePacket.decode(text: text, version: .v4)
        } catch {
            logger.debug("closing: malformed WebSocket message", metadata: ["socketio.error": "\(error)"])
            if messageTarget(from: writer) != nil {
                close(.parseError(error.description))
            } else {
                writer.close()
            }
            return
        }
        if case .binaryMessage(let data) = packet {
            await receive(binary: data, from: writer)
            return
        }
        control(packet, from: writer)
    }

    /// A binary message from `writer`'s WebSocket.
    func receive(binary data: Data, from writer: WebSocketWriter) async {
        guard let client = messageTarget(from: writer) else { return }
        await client.receive(binary: data)
    }
}
