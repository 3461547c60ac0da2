/// The auth payload a socket sends with CONNECT.
///
/// A provider is called again before every CONNECT, so a token can be refreshed on reconnect.
public enum SocketAuth: Sendable {
    /// No auth payload.
    case none
    /// The same object every time.
    case `static`(JSONObject)
    /// Called before every CONNECT; `nil` sends none.
    case provider(@Sendable () async throws -> JSONObject?)

    /// Called before every CONNECT, for the common case of string values:
    ///
    /// ```swift
    /// manager.socket(namespace: "/chat", auth: .provider { ["token": try await tokens.fresh()] })
    /// ```
    ///
    /// (A closure whose dictionary holds other JSON values, or returns `nil`, picks the
    /// `provider` case itself.)
    public static func provider(_ strings: @escaping @Sendable () async throws -> [String: String]) -> SocketAuth {
        .provider { () async throws -> JSONObject? in
            JSONObject(try await strings().sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
        }
    }

    func resolve() async throws -> JSONObject? {
        switch self {
        case .none: nil
        case .static(let object): object
        case .provider(let provider): try await provider()
        }
    }
}
