import SocketIOProtocol

extension EngineCloseReason {
    /// What the server's refusal of a request means to the engine.
    ///
    /// A refused handshake (polling's first GET, or a WebSocket-only session's upgrade request)
    /// answered 401 is the server refusing the client; answered 400 with a body that names an
    /// unsupported version (socket.io's `{"code":5,"message":"Unsupported protocol version"}`,
    /// python-socketio's "unsupported version"), a revision the server does not speak. Anything
    /// else, and any refusal after the handshake, is a transport error.
    static func refused(status: Int, body: String, handshake: Bool, tried: EngineIOVersion) -> EngineCloseReason {
        let detail = "HTTP \(status) \(body.prefix(200))"
        guard handshake else { return .transportError(detail) }
        if status == 401 { return .handshakeRefused(body) }
        let lower = body.lowercased()
        if status == 400 && (lower.contains("unsupported version") || lower.contains("unsupported protocol version")
            || lower.contains("\"code\":5")) {
            return .unsupportedVersion(tried: tried, serverSpeaks: nil, detail: detail)
        }
        return .transportError(detail)
    }
}
