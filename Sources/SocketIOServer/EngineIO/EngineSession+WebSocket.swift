import Logging
import Foundation
import SocketIOProtocol

extension EngineSession {
    /// A text message from `writer`'s WebSocket.
    func receive(text: String, from writer: WebSocketWriter) async {
        environment.metrics.received(text.utf8.count, over: .websocket)
        // Messages (`4…`) are the hot path: hand the Socket.IO text on without copying it.
        if text.utf8.first == UInt8(ascii: "4") {
            guard let client = messageTarget(from: writer) else { return }
            await client.receive(text: text.dropFirst())
            return
        }
        let packet: EnginePacket
        do {
            packet = try EnginePacket.decode(text: text, version: version)
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
            await deliver(binary: data, from: writer)
            return
        }
        control(packet, from: writer)
    }

    /// A binary message from `writer`'s WebSocket (v3: after its type byte, which must say
    /// `message`).
    func receive(binary data: Data, from writer: WebSocketWriter) async {
        environment.metrics.received(data.count, over: .websocket)
        var data = data
        if version == .v3 {
            guard data.first == 4 else {
                close(.parseError("a v3 binary frame that is not a message"))
                return
            }
            // Its own `Data`, from index 0 (as over polling): a slice would start at 1.
            data = Data(data.dropFirst())
        }
        await deliver(binary: data, from: writer)
    }

    private func deliver(binary data: Data, from writer: WebSocketWriter) async {
        guard let client = messageTarget(from: writer) else { return }
        await client.receive(binary: data)
    }
}
