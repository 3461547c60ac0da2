import Foundation
import Logging
import HummingbirdWebSocket
import NIOConcurrencyHelpers
import NIOCore

/// Serves the plain WebSocket endpoint: the app's handler, or an echo of every message.
final class PlainWebSocketEndpoint: Sendable {
    typealias Handler = @Sendable (PlainWebSocketConnection) async throws -> Void

    private let environment: ServerEnvironment
    private let handler = NIOLockedValueBox<Handler?>(nil)
    private let connections = NIOLockedValueBox<[String: PlainWebSocketConnection]>([:])

    init(environment: ServerEnvironment) {
        self.environment = environment
    }

    func setHandler(_ newHandler: Handler?) {
        handler.withLockedValue { $0 = newHandler }
    }

    func serve(inbound: WebSocketInboundStream, channel: any Channel, request: RequestInfo) async throws {
        let configuration = environment.configuration
        let writer = try await WebSocketWriter.install(on: channel, limit: configuration.maxQueuedBytes)
        let connection = PlainWebSocketConnection(
            id: Identifiers.make(),
            request: request,
            messages: PlainWebSocketMessages(base: inbound.messages(maxSize: configuration.maxPayload)),
            writer: writer
        )
        connections.withLockedValue { $0[connection.id] = connection }
        environment.events.emit(.plainWebSocketOpened(id: connection.id, address: request.address))
        defer {
            connections.withLockedValue { _ = $0.removeValue(forKey: connection.id) }
            environment.events.emit(.plainWebSocketClosed(id: connection.id))
            writer.close()
        }
        do {
            if let handler = handler.withLockedValue({ $0 }) {
                try await handler(connection)
            } else {
                try await Self.echo(connection)
            }
        } catch {
            environment.logger.debug("plain WebSocket ended", metadata: ["socketio.error": "\(error)"])
        }
    }

    /// The default behaviour: every message comes back as it was sent.
    static func echo(_ connection: PlainWebSocketConnection) async throws {
        for try await message in connection.messages {
            switch message {
            case .text(let text): connection.send(text)
            case .binary(let data): connection.send(data)
            }
        }
    }

    func closeAll() {
        for connection in connections.withLockedValue({ Array($0.values) }) { connection.close() }
    }
}
