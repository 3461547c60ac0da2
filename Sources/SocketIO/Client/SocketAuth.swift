/// The auth payload a socket sends with CONNECT.
///
/// A provider is called again before every CONNECT, so a token can be refreshed on reconnect.
public enum SocketAuth: Sendable {
    case none
    /// The same object every time.
    case `static`(JSONObject)
    /// Called before every CONNECT; `nil` sends none.
    case provider(@Sendable () async throws -> JSONObject?)

    func resolve() async throws -> JSONObject? {
        switch self {
        case .none: nil
        case .static(let object): object
        case .provider(let provider): try await provider()
        }
    }
}
