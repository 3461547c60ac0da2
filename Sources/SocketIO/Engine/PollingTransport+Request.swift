import AsyncHTTPClient
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
        let scheme = options.endpoint.address.secure ? "https" : "http"
        var request = HTTPClientRequest(url: "\(scheme)://\(options.endpoint.address.hostHeader)\(uri)")
        request.method = method
        for (name, value) in options.headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "text/plain;charset=UTF-8")
            request.body = .bytes(ByteBuffer(string: body))
        }
        // A GET is held by the server (and cancelled on close); a POST must not hang a close.
        let response = try await options.client.execute(request, timeout: method == .GET ? .hours(1) : .seconds(60))
        let bytes = try await response.body.collect(upTo: options.maxMessageSize)
        let text = String(buffer: bytes)
        guard response.status == .ok else {
            throw PollingFailure(classify(status: response.status, body: text, handshake: sid == nil))
        }
        return text
    }

    /// Turns a failed handshake into the reason the engine acts on (version mismatch, refusal).
    private func classify(status: HTTPResponseStatus, body: String, handshake: Bool) -> EngineCloseReason {
        let detail = "HTTP \(status.code) \(body.prefix(200))"
        guard handshake else { return .transportError(detail) }
        if status == .unauthorized { return .handshakeRefused(body) }
        let lower = body.lowercased()
        if status == .badRequest && (lower.contains("unsupported version") || lower.contains("unsupported protocol version")
            || lower.contains("\"code\":5")) {
            return .unsupportedVersion(tried: options.version, serverSpeaks: nil, detail: detail)
        }
        return .transportError(detail)
    }

    /// A short random cache buster, like socket.io's `t` parameter.
    static func timestamp() -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_")
        return String((0..<7).map { _ in alphabet.randomElement() ?? "x" })
    }
}
