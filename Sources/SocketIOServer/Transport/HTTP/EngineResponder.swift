import Foundation
import Hummingbird
import Logging
import NIOCore

/// The request context: Hummingbird's core storage plus the client's address.
struct EngineRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: String?
    /// The connection the request came on (a held GET's is watched for closing).
    let connection: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = CoreRequestContextStorage(source: source)
        self.remoteAddress = source.channel.remoteAddress.flatMap(ServerCore.describe)
        self.connection = source.channel
    }
}

/// Answers the HTTP side of Engine.IO: handshake GETs, long-poll GETs, POSTs, CORS preflight,
/// and the JS server's errors for everything else. WebSocket upgrades are decided in
/// ``ServerCore/shouldUpgrade(_:channel:)``.
struct EngineResponder: HTTPResponder {
    typealias Context = EngineRequestContext

    let core: ServerCore

    func respond(to request: Request, context: Context) async throws -> Response {
        let route = EngineRoute(
            method: request.method.rawValue,
            path: request.uri.path,
            query: request.uri.query,
            origin: request.headers[.origin],
            contentType: request.headers[.contentType],
            configuration: core.environment.configuration,
            rawMounts: core.rawMountPaths
        )
        let cors = route.cors
        switch route.action {
        case .notFound:
            return Response(status: .notFound)
        case .error(let error):
            return error.response(headers: cors.headers)
        case .preflight:
            return preflight(request, cors: cors)
        case .handshake(let query):
            return handshake(request, query: query, mount: route.mount ?? core.environment.configuration.normalizedPath,
                             version: route.version, context: context, cors: cors)
        case .session(let sid, let sessionRequest):
            guard let session = core.sessions[sid], session.mount == route.mount else {
                return EngineHTTPError.unknownSession.response(headers: cors.headers)
            }
            switch sessionRequest {
            case .poll:
                switch await session.poll(on: context.connection) {
                case .frames(let frames):
                    let (body, binary) = PollingBody.encode(frames, for: session)
                    core.environment.metrics.sent(body.readableBytes, over: .polling)
                    return binary ? Self.binary(body, cors: cors) : Self.text(body, cors: cors)
                case .rejected:
                    return EngineHTTPError.badRequest.response(headers: cors.headers)
                }
            case .post:
                return await post(request, to: session, cors: cors)
            case .refuse(let error):
                return error.response(headers: cors.headers)
            }
        }
    }

    private func handshake(
        _ request: Request, query: [String: String], mount: String, version: EngineIOVersion, context: Context, cors: CORSDecision
    ) -> Response {
        let info = RequestInfo(
            headers: ServerCore.headerDictionary(request.head),
            query: query,
            address: context.remoteAddress,
            url: request.uri.string,
            time: Date()
        )
        do {
            let session = try core.openSession(mount: mount, version: version, base64: query["b64"] == "1", webSocket: nil, request: info)
            let open = core.openFrame(sid: session.sid, transport: .polling)
            return Self.text(version == .v3 ? PollingBody.encode([open], for: session).body : open.bytes, cors: cors)
        } catch {
            return EngineHTTPError.forbidden.response(headers: cors.headers, message: error.message)
        }
    }

    private func post(_ request: Request, to session: EngineSession, cors: CORSDecision) async -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: core.environment.configuration.maxPayload)
            core.environment.metrics.received(body.readableBytes, over: .polling)
        } catch is NIOTooManyBytesError {
            return Response(status: .contentTooLarge, headers: cors.headers)
        } catch {
            return EngineHTTPError.badRequest.response(headers: cors.headers)
        }
        switch await session.post(body) {
        case .accepted:
            var headers = cors.headers
            headers[.contentType] = "text/html"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok")))
        case .rejected, .malformed:
            return EngineHTTPError.badRequest.response(headers: cors.headers)
        }
    }

    private func preflight(_ request: Request, cors: CORSDecision) -> Response {
        var headers = cors.headers
        headers[.accessControlAllowMethods] = "GET, POST, OPTIONS"
        if let requested = request.headers[.accessControlRequestHeaders] {
            headers[.accessControlAllowHeaders] = requested
        }
        headers[.contentLength] = "0"
        return Response(status: .noContent, headers: headers)
    }

    static func binary(_ body: ByteBuffer, cors: CORSDecision) -> Response {
        var headers = cors.headers
        headers[.contentType] = "application/octet-stream"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    static func text(_ body: ByteBuffer, cors: CORSDecision) -> Response {
        var headers = cors.headers
        headers[.contentType] = "text/plain; charset=UTF-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

extension ServerCore {
    /// The request's headers by lower-case name, repeated ones joined with `, `; `host` among
    /// them (HTTPTypes keeps it apart, as the `:authority` pseudo-header, where socket.io's
    /// handshake lists it with the others).
    static func headerDictionary(_ head: HTTPRequest) -> [String: String] {
        var headers: [String: String] = [:]
        if let authority = head.authority { headers["host"] = authority }
        for field in head.headerFields {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        return headers
    }

    /// `127.0.0.1:53122` for an IP address.
    static func describe(_ address: SocketAddress) -> String? {
        guard let ip = address.ipAddress else { return nil }
        guard let port = address.port else { return ip }
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}
