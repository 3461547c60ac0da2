import FuzzSupport
import SocketIOProtocol
@_spi(Fuzzing) import SocketIOServer

/// One HTTP request to the server's Engine.IO front end, decided by `EngineRoute` (what
/// `EngineResponder` does with every request) and, for a POST to a session, its body decoded as
/// `EngineSession.post` decodes it.
///
/// Selector bits 0–1: allowed origins (unrestricted, any, a list of one, an empty list); bit 2:
/// polling only or both transports; bit 3: the default path or `/custom` (configured without
/// slashes). The body holds lines: method, target (`path?query`), `Origin`, `Content-Type`
/// (an empty header line is no header), then the HTTP body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let configuration = configurations[Int(input.selector & 0x0F)]
    var lines = input.pieces(separatedBy: UInt8(ascii: "\n"), maxSplits: 4).map { String(decoding: $0, as: UTF8.self) }
    while lines.count < 5 { lines.append("") }
    let method = lines[0]
    let target = lines[1]
    let path = target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
    let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) }

    let route = EngineRoute(
        method: method,
        path: path,
        query: query,
        origin: lines[2].isEmpty ? nil : lines[2],
        contentType: lines[3].isEmpty ? nil : lines[3],
        configuration: configuration
    )
    switch route.action {
    case .notFound, .error:
        break
    case .preflight:
        invariant(method == "OPTIONS", "preflight for \(method)")
    case .handshake(let parameters):
        invariant(method == "GET" && parameters["EIO"] == "4" && parameters["transport"] == "polling"
                  && parameters["sid"] == nil, "handshake for \(method) \(target)")
    case .session(_, let request):
        switch request {
        case .poll:
            invariant(method == "GET", "poll for \(method)")
        case .post:
            invariant(method == "POST", "post for \(method)")
            checkBody(input.pieces(separatedBy: UInt8(ascii: "\n"), maxSplits: 4).dropFirst(4).first ?? [])
        case .refuse:
            break
        }
    }
    return 0
}

private func checkBody(_ body: ArraySlice<UInt8>) {
    guard let packets = try? EngineRoute.packets(inPostBody: body) else { return }
    let encoded = PollingPayload.encode(packets, version: .v4)
    invariant((try? EngineRoute.packets(inPostBody: Array(encoded.utf8))) == packets, "\(packets) → \(encoded)")
}

/// The sixteen server configurations the selector picks from.
private let configurations: [SocketIOServer.Configuration] = (0..<16).map { bits in
    let origins: AllowedOrigins = switch bits & 3 {
    case 0: .unrestricted
    case 1: .any
    case 2: .list(["https://app.example.com"])
    default: .list([])
    }
    return SocketIOServer.Configuration(
        path: bits & 8 == 0 ? "/socket.io/" : "custom",
        allowedOrigins: origins,
        transports: bits & 4 == 0 ? [.polling, .websocket] : [.polling]
    )
}
