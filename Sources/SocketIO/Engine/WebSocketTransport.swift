import SwitchboardCore
import NIOConcurrencyHelpers
import NIOCore
import SocketIOProtocol
import WebSocketClient

/// Engine.IO over one WebSocket: one Engine.IO packet per WebSocket message, on the shared
/// ``WebSocketClientChannel`` (swift-nio's upgrader, no `Origin`, coalesced writes).
final class WebSocketTransport: EngineTransport {
    let name = "websocket"

    private let version: EngineIOVersion
    /// Set once, before the channel connects (the channel's handler, made before the channel,
    /// reaches it through here to drop the connection on a parse error).
    private let channel = NIOLockedValueBox<WebSocketClientChannel?>(nil)

    /// Starts connecting to `uri` on `endpoint`; `handler` hears every packet and, once, the end.
    /// `handshake`: the WebSocket opens the session (WebSocket only), rather than upgrading one.
    init(
        endpoint: EngineEndpoint,
        uri: String,
        handshake: Bool,
        headers: [(String, String)],
        version: EngineIOVersion,
        maxMessageSize: Int,
        trustRoots: TrustRoots = .system,
        network: NetworkSettings = NetworkSettings(),
        eventLoop: (any EventLoop)? = nil,
        handler: @escaping @Sendable (TransportEvent) -> Void
    ) {
        self.version = version
        let reporter = TransportReporter(handler)
        var configuration = WebSocketClientChannel.Configuration(
            address: endpoint.address, target: uri, headers: headers,
            maxMessageSize: maxMessageSize, trustRoots: trustRoots, group: eventLoop
        )
        configuration.network = network
        let made = WebSocketClientChannel(configuration: configuration) { [weak self, version] event in
            switch event {
            case .opened:
                return
            case .message(let message):
                do {
                    switch message {
                    case .text(let text): reporter.packet(try EnginePacket.decode(text: text, version: version))
                    case .binary(let data): reporter.packet(try EnginePacket.decode(binaryFrame: data, version: version))
                    }
                } catch {
                    reporter.end(.parseError("\(error)"))
                    self?.channel.withLockedValue { $0 }?.abort()
                }
            case .ended(.closed):
                reporter.end(.transportClose)
            case .ended(.failed(.upgradeRefused(let status, let body))):
                // Refused before a session existed (WebSocket only), it may name the reason.
                reporter.end(.refused(status: status, body: body, handshake: handshake, tried: version))
            case .ended(.failed(let failure)):
                reporter.end(.transportError(failure.description))
            }
        }
        channel.withLockedValue { $0 = made }
    }

    func start() {
        current?.connect()
    }

    private var current: WebSocketClientChannel? { channel.withLockedValue { $0 } }

    func enqueue(_ packets: [EnginePacket], afterPeerRead: Bool) -> TransportWrite? {
        guard let channel = current else { return nil }
        return channel.enqueue(packets.map(message), afterPeerRead: afterPeerRead).map(TransportWrite.webSocket)
    }

    /// `packet` as one WebSocket message: Engine.IO sends exactly one packet per message.
    private func message(_ packet: EnginePacket) -> WebSocketMessage {
        packet.binaryFrame(version: version).map(WebSocketMessage.binary) ?? .text(packet.encodedText(version: version))
    }

    func waitUntilClosed() async {
        await current?.waitUntilClosed()
    }

    func close() {
        current?.close()
    }
}

/// Hands transport events to the engine, and the end exactly once.
final class TransportReporter: Sendable {
    private let handler: @Sendable (TransportEvent) -> Void
    private let ended = NIOLockedValueBox(false)

    init(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        self.handler = handler
    }

    func packet(_ packet: EnginePacket) {
        guard !ended.withLockedValue({ $0 }) else { return }
        handler(.packet(packet))
    }

    func end(_ reason: EngineCloseReason) {
        let first = ended.withLockedValue { ended in
            defer { ended = true }
            return !ended
        }
        if first { handler(.ended(reason)) }
    }
}
