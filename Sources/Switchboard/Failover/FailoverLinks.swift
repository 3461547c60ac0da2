import Foundation
import NIOConcurrencyHelpers
import NIOCore
import SocketIO
import SocketIOProtocol
import WebSocketClient

/// One transport connection carrying a failover channel: envelopes out, envelopes in, one end.
protocol FailoverLink: Sendable {
    func send(_ envelope: Envelope)
    func close()
}

/// What a link reports: an envelope (or why a message was not one), then one end.
enum FailoverLinkEvent: Sendable {
    case envelope(Result<Envelope, EnvelopeError>)
    case ended(String)
}

/// The channel over a plain WebSocket: one envelope per text message.
final class WebSocketLink: FailoverLink {
    private let channel: WebSocketClientChannel

    private init(channel: WebSocketClientChannel) {
        self.channel = channel
    }

    /// Connects to `url` and returns once the upgrade completed; `report` gets every envelope
    /// and the end.
    static func open(
        _ url: URL, connectTimeout: Duration, report: @escaping @Sendable (FailoverLinkEvent) -> Void
    ) async throws -> WebSocketLink {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let address = ServerAddress(components) else {
            throw ConnectionError.invalidConfiguration("not a WebSocket URL: \(url.absoluteString)")
        }
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        let timeout = TimeAmount.nanoseconds(Int64(connectTimeout.components.seconds) * 1_000_000_000
            + connectTimeout.components.attoseconds / 1_000_000_000)
        let configuration = WebSocketClientChannel.Configuration(
            address: address, target: target, maxMessageSize: 16 << 20,
            connectTimeout: timeout + .seconds(1), openTimeout: timeout
        )
        let opening = NIOLockedValueBox<CheckedContinuation<Void, any Error>?>(nil)
        let channel = WebSocketClientChannel(configuration: configuration) { event in
            switch event {
            case .opened:
                opening.withLockedValue { continuation in
                    continuation?.resume()
                    continuation = nil
                }
            case .message(.text(let text)):
                report(.envelope(Result { () throws(EnvelopeError) in try Envelope(parsing: text) }))
            case .message(.binary):
                report(.envelope(.failure(.binaryMessage)))
            case .ended(let end):
                let waiting = opening.withLockedValue { continuation in
                    defer { continuation = nil }
                    return continuation
                }
                if let waiting {
                    waiting.resume(throwing: ConnectionError.connectFailed("WebSocket: \(end)"))
                } else {
                    report(.ended("WebSocket: \(end)"))
                }
            }
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                opening.withLockedValue { $0 = continuation }
                channel.connect()
            }
        } onCancel: {
            channel.abort()
        }
        return WebSocketLink(channel: channel)
    }

    func send(_ envelope: Envelope) {
        channel.send(.text(envelope.text))
    }

    func close() {
        channel.close()
    }
}

/// The channel over Socket.IO: the `envelope` event, one envelope as its argument.
final class SocketIOLink: FailoverLink {
    private let manager: Manager
    private let socket: Socket

    private init(manager: Manager, socket: Socket) {
        self.manager = manager
        self.socket = socket
    }

    /// Connects to `namespace` at `url` (reconnection is the channel's, not the client's) and
    /// returns once connected.
    static func open(
        _ url: URL, namespace: String, connectTimeout: Duration, report: @escaping @Sendable (FailoverLinkEvent) -> Void
    ) async throws -> SocketIOLink {
        var options = Manager.Configuration()
        options.reconnection = false
        options.connectTimeout = connectTimeout
        options.networkMonitor = nil
        let manager = try Manager(url: url, configuration: options)
        let socket = manager.socket(namespace: namespace)
        let ended = NIOLockedValueBox(false)
        socket.on("envelope") { event in
            guard let json = event.items.first else {
                report(.envelope(.failure(.notAnObject)))
                return
            }
            report(.envelope(Result { () throws(EnvelopeError) in try Envelope(json: json) }))
        }
        socket.on("disconnect") { event in
            guard !ended.withLockedValue({ $0 }) else { return }
            ended.withLockedValue { $0 = true }
            report(.ended("Socket.IO: \(event.items.first?.stringValue ?? "disconnected")"))
        }
        do {
            try await socket.connect()
        } catch {
            ended.withLockedValue { $0 = true }
            await manager.close()
            throw ConnectionError.connectFailed("Socket.IO: \(error)")
        }
        return SocketIOLink(manager: manager, socket: socket)
    }

    func send(_ envelope: Envelope) {
        _ = try? socket.emitVolatile("envelope", envelope.jsonValue)
    }

    func close() {
        let manager = self.manager
        Task { await manager.close() }
    }
}
