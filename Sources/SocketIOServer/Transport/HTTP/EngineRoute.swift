import Foundation
public import SocketIOProtocol

/// What the Engine.IO HTTP front end does with one request, decided from the request's method,
/// path, query and headers alone: no session lookup, no I/O. ``EngineResponder`` carries it out.
///
/// Everything it reads comes from the network, so the fuzz targets in `Fuzz/` drive it (and
/// ``packets(inPostBody:)``) with arbitrary requests. `Fuzz/` is another package, which
/// `package` access does not reach: hence public, but only to `@_spi(Fuzzing) import`.
@_spi(Fuzzing) public struct EngineRoute: Sendable {
    /// The response's kind.
    public enum Action: Sendable, Hashable {
        /// Not the Engine.IO path: 404.
        case notFound
        /// One of the JS server's errors (400, or 403 for a refused origin).
        case error(EngineHTTPError)
        /// A CORS preflight from an allowed origin: 204 with the allow headers.
        case preflight
        /// A polling handshake (a GET without `sid`): open a session; `query` is all of it.
        case handshake(query: [String: String])
        /// A request for session `sid`, which the responder looks up first (400 `Session ID
        /// unknown` if there is none) and then answers as `request` says.
        case session(sid: String, SessionRequest)
    }

    /// What a request naming a session asks of it.
    public enum SessionRequest: Sendable, Hashable {
        /// A long-poll GET.
        case poll
        /// A POST of a v4 text payload.
        case post
        /// Refused once the session is known to exist (400).
        case refuse(EngineHTTPError)
    }

    /// What the request asks for.
    public let action: Action
    /// The Engine.IO protocol the request speaks (`EIO=4`, or anything else with `allowEIO3`,
    /// as the JS server reads it); `v4` when the request was refused before that was known.
    public let version: EngineIOVersion
    /// The Engine.IO path the request is for (Socket.IO's, or a raw Engine.IO mount); `nil`
    /// for a 404.
    public let mount: String?
    /// The CORS headers every answer but a 404 carries.
    let cors: CORSDecision

    /// The Engine.IO path among `mounts` (each ending in `/`) that `path` names, with or without
    /// its trailing slash.
    static func mount(for path: some StringProtocol, among mounts: [String]) -> String? {
        mounts.first { path == $0 || path == $0.dropLast() }
    }

    /// Decides a request the way socket.io's JS server does, in its order of checks.
    /// - Parameters:
    ///   - method: The HTTP method as sent (`GET`, `POST`, `OPTIONS`, …).
    ///   - path: The request target's path, without the query.
    ///   - query: The raw query string after `?`, if any.
    ///   - origin: The `Origin` header.
    ///   - contentType: The `Content-Type` header.
    ///   - rawMounts: The paths of raw Engine.IO endpoints, beside Socket.IO's.
    public init(
        method: String,
        path: String,
        query: String?,
        origin: String?,
        contentType: String?,
        configuration: SocketIOServer.Configuration,
        rawMounts: [String] = []
    ) {
        guard let mount = Self.mount(for: path, among: [configuration.normalizedPath] + rawMounts) else {
            self.init(.notFound, cors: .none, mount: nil)
            return
        }
        self.init(method: method, query: query, origin: origin, contentType: contentType, configuration: configuration, mount: mount)
    }

    private init(
        method: String,
        query: String?,
        origin: String?,
        contentType: String?,
        configuration: SocketIOServer.Configuration,
        mount: String
    ) {
        let cors = CORSDecision(policy: configuration.allowedOrigins, origin: origin)
        if case .refuse = cors {
            self.init(.error(.forbidden), cors: cors, mount: mount)
            return
        }
        if method == "OPTIONS", case .allow = cors {
            self.init(.preflight, cors: cors, mount: mount)
            return
        }
        let query = EngineQuery(query.map { Substring($0) })
        guard let name = query.transport, let transport = SocketIOServer.TransportKind(rawValue: name),
              configuration.transports.contains(transport) else {
            self.init(.error(.unknownTransport), cors: cors, mount: mount)
            return
        }
        guard let version = query.version(allowEIO3: configuration.allowEIO3) else {
            self.init(.error(.unsupportedProtocolVersion), cors: cors, mount: mount)
            return
        }
        guard let sid = query.sid else {
            if method != "GET" {
                self.init(.error(.badHandshakeMethod), cors: cors, mount: mount)
            } else if transport != .polling {
                // A WebSocket handshake without the Upgrade header, or polling turned off.
                self.init(.error(.badRequest), cors: cors, mount: mount)
            } else {
                self.init(.handshake(query: query.parameters), cors: cors, mount: mount, version: version)
            }
            return
        }
        let request: SessionRequest
        if transport != .polling {
            request = .refuse(.badRequest)
        } else if method == "GET" {
            request = .poll
        } else if method == "POST" {
            // v4 bodies are text (binary travels as base64 records); v3 also has a binary body
            // format, which python-engineio 3.x's client always uses.
            let binaryBody = contentType?.lowercased().hasPrefix("application/octet-stream") ?? false
            request = binaryBody && version == .v4 ? .refuse(.badRequest) : .post
        } else {
            request = .refuse(.badRequest)
        }
        self.init(.session(sid: sid, request), cors: cors, mount: mount, version: version)
    }

    private init(_ action: Action, cors: CORSDecision, mount: String?, version: EngineIOVersion = .v4) {
        self.action = action
        self.cors = cors
        self.mount = mount
        self.version = version
    }

    /// The packets of a POST body: a v4 text payload (bytes that are not UTF-8 are repaired, as
    /// JS reads them); any malformed record makes the whole body an error.
    public static func packets(inPostBody body: some Collection<UInt8>) throws(ProtocolError) -> [EnginePacket] {
        try PollingPayload.decode(String(decoding: body, as: UTF8.self), version: .v4)
    }

    /// The packets of a POST body in `version`: v4 text; v3 text (`<length>:<packet>`) or, when
    /// the body's first byte is 0 or 1, v3's binary format.
    public static func packets(inPostBody body: some Collection<UInt8>, version: EngineIOVersion) throws(ProtocolError) -> [EnginePacket] {
        switch version {
        case .v4:
            return try packets(inPostBody: body)
        case .v3:
            if let first = body.first, first <= 1 { return try PollingPayload.decodeBinaryV3(Data(body)) }
            return try PollingPayload.decode(String(decoding: body, as: UTF8.self), version: .v3)
        }
    }
}
