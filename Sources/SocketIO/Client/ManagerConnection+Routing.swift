import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol

extension ManagerConnection {
    /// Decodes a message of the current session and hands the packet to its namespace's socket.
    /// A packet that does not decode closes the session (`parseError`), as socket.io does.
    func receive(_ message: EnginePacket) {
        let result = transition { $0.decode(message) }
        switch result {
        case .success(nil):
            return
        case .success(let (packet, socket)?):
            guard let socket else {
                logger.debug("packet for a namespace without a socket", metadata: ["socketio.nsp": "\(packet.namespace)"])
                return
            }
            socket.connection.received(packet)
        case .failure(let error):
            logger.warning("closing: the server sent an invalid packet", metadata: ["socketio.error": "\(error)"])
            let engine = transition { $0.engine }
            engine?.fail(.parseError(error.description))
        }
    }
}
