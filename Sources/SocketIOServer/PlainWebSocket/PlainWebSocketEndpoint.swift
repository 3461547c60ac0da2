import SwitchboardCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Serves the plain WebSocket endpoint: the app's handler, or an echo of every message.
final class PlainWebSocketEndpoint: Sendable {
    typealias Handler = @Sendable (PlainWebSocketConnection) async throws -> Void

    /// The app's handler inside a struct, never as the box's whole value: a function stored
    /// directly in a generic box gains a re-abstraction thunk on every `inout` read (see
    /// `CallOnce`), so every connection made the next one's call deeper (`sio serve` spent
    /// 1.3 s of CPU on its first 3,000 `/ws` connections and 5.1 s on its fifth 3,000).
    private struct Installed: Sendable {
        let run: Handler
    }

    private let environment: ServerEnvironment
    private let handler = NIOLockedValueBox<Installed?>(nil)
    private let connections = NIOLockedValueBox<[String: PlainWebSocketConnection]>([:])
    /// Set by ``closeAll()``: a connection that opens afterwards is closed at once.
    private let stopping = NIOLockedValueBox(false)

    init(environment: ServerEnvironment) {
        self.environment = environment
    }

    func setHandler(_ newHandler: Handler?) {
        let installed = newHandler.map(Installed.init)
        handler.withLockedValue { $0 = installed }
    }

    /// Serves one upgraded connection in a task of its own (never on the event loop):
    /// registers it and runs the app's handler (or the echo) until it returns or the client goes.
    func serve(_ mailbox: MessageMailbox, writer: WebSocketWriter, request: RequestInfo) {
        Task {
            let connection = PlainWebSocketConnection(
                id: Identifiers.make(),
                request: request,
                messages: PlainWebSocketMessages(mailbox: mailbox),
                writer: writer
            )
            connections.withLockedValue { $0[connection.id] = connection }
            if stopping.withLockedValue({ $0 }) { connection.close() }
            environment.events.emit(.plainWebSocketOpened(id: connection.id, address: request.address))
            defer {
                connections.withLockedValue { _ = $0.removeValue(forKey: connection.id) }
                environment.events.emit(.plainWebSocketClosed(id: connection.id))
                writer.close()
            }
            do {
                if let installed = handler.withLockedValue({ $0 }) {
                    try await installed.run(connection)
                } else {
                    try await Self.echo(connection)
                }
            } catch {
                environment.logger.debug("plain WebSocket ended", metadata: ["socketio.error": "\(error)"])
            }
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
        stopping.withLockedValue { $0 = true }
        for connection in connections.withLockedValue({ Array($0.values) }) { connection.close() }
    }
}
