import Foundation
import NIOCore
import NIOHTTP1
import SocketIOProtocol
import WebSocketClient

/// A polling request that failed in a way the engine must hear about, with the reason to report.
struct PollingFailure: Error {
    let reason: EngineCloseReason
    init(_ reason: EngineCloseReason) { self.reason = reason }
}

extension PollingTransport {
    /// Performs one GET or POST and returns the response body as text.
    func request(method: HTTPMethod, sid: String?, body: String?) async throws -> String {
        var extra: [URLQueryItem] = []
        if options.version == .v3 { extra.append(URLQueryItem(name: "b64", value: "1")) }
        let uri = options.endpoint.requestURI(
            transport: "polling", version: options.version, sid: sid,
            timestamp: options.timestampRequests ? Self.timestamp() : nil, extra: extra)
        // Only the handshake may reach the server twice: a poll the server answered, or a POST
        // it handled, sent again after a cut would lose that answer or double those packets
        // without a word. The cut ends the transport instead, and the engine hears it.
        var request = HTTP1Request(method: method, target: uri, headers: options.headers, repeatable: sid == nil)
        if let body {
            request.headers.append(("Content-Type", "text/plain;charset=UTF-8"))
            request.body = ByteBuffer(string: body)
        }
        // A GET is held by the server (and cancelled on close); a POST must not hang a close.
        let response = try await options.client.execute(
            request, maxBodySize: options.maxMessageSize, timeout: method == .GET ? .hours(1) : .seconds(60))
        let text = String(buffer: response.body)
        guard response.status == .ok else {
            throw PollingFailure(.refused(status: Int(response.status.code), body: text, handshake: sid == nil, tried: options.version))
        }
        return text
    }

    /// A short random cache buster, like socket.io's `t` parameter.
    static func timestamp() -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_")
        return String((0..<7).map { _ in alphabet.randomElement() ?? "x" })
    }
}
