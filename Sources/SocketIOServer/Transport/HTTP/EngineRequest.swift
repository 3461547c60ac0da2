import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The Engine.IO parameters of a request's query (`EIO`, `transport`, `sid`) and all of it.
struct EngineQuery: Sendable {
    var parameters: [String: String] = [:]

    init(_ query: Substring?) {
        parameters = query.map(QueryString.parameters) ?? [:]
    }

    var eio: String? { parameters["EIO"] }
    var transport: String? { parameters["transport"] }
    var sid: String? { parameters["sid"] }

    /// The Engine.IO revision asked for: v4 for `EIO=4`; v3 for anything else when `allowEIO3`
    /// (as socket.io's JS server takes it), else `nil` (refused).
    func version(allowEIO3: Bool) -> EngineIOVersion? {
        if eio == "4" { return .v4 }
        return allowEIO3 ? .v3 : nil
    }

    /// Splits a request target into its path and query.
    static func split(_ target: String) -> (path: Substring, query: Substring?) {
        guard let mark = target.firstIndex(of: "?") else { return (Substring(target), nil) }
        return (target[..<mark], target[target.index(after: mark)...])
    }
}

/// The JS server's HTTP errors: 400 (403 for `forbidden`) with `{"code":n,"message":"…"}`.
@_spi(Fuzzing) public enum EngineHTTPError: Int, Error, Sendable {
    case unknownTransport = 0
    case unknownSession = 1
    case badHandshakeMethod = 2
    case badRequest = 3
    case forbidden = 4
    case unsupportedProtocolVersion = 5

    var message: String {
        switch self {
        case .unknownTransport: "Transport unknown"
        case .unknownSession: "Session ID unknown"
        case .badHandshakeMethod: "Bad handshake method"
        case .badRequest: "Bad request"
        case .forbidden: "Forbidden"
        case .unsupportedProtocolVersion: "Unsupported protocol version"
        }
    }

    var status: HTTPResponse.Status {
        self == .forbidden ? .forbidden : .badRequest
    }

    /// The JS server's answer: its status and `{"code":…,"message":…}` (`message` replaces the
    /// standard one, as an `allowRequest` refusal's does there).
    func response(headers: HTTPFields = [:], message: String? = nil) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body(message: message))))
    }

    /// `{"code":…,"message":…}`, with `message` in place of the standard one when given.
    func body(message: String? = nil) -> String {
        #"{"code":\#(rawValue),"message":"\#(message ?? self.message)"}"#
    }
}

/// CORS as ``AllowedOrigins`` decides it for one request.
enum CORSDecision: Sendable {
    /// No CORS headers (no `Origin`, or the policy is `unrestricted`).
    case none
    /// Allowed: echo the origin.
    case allow(String)
    /// The origin is not allowed: 403.
    case refuse

    init(policy: AllowedOrigins, origin: String?) {
        guard let origin else {
            self = .none
            return
        }
        switch policy {
        case .unrestricted: self = .none
        case .any: self = .allow(origin)
        case .list(let origins): self = origins.contains(origin) ? .allow(origin) : .refuse
        }
    }

    /// The headers for a response.
    var headers: HTTPFields {
        guard case .allow(let origin) = self else { return [:] }
        return [
            .accessControlAllowOrigin: origin,
            .accessControlAllowCredentials: "true",
            .vary: "Origin",
        ]
    }
}
