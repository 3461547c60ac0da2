public import Foundation

/// Namespace names as socket.io's client reads them: `io("https://example.com/admin")` joins
/// `/admin`, and the URL's path is never the Engine.IO path (that is the `path` option).
public enum SocketNamespace {
    /// `name` with a leading `/` (`chat` → `/chat`); `/` for an empty name.
    public static func normalized(_ name: String) -> String {
        name.hasPrefix("/") ? name : "/" + name
    }

    /// `namespace` without the query a protocol v4 CONNECT may carry its auth in
    /// (`/admin?token=1` → `/admin`).
    public static func withoutQuery(_ namespace: String) -> String {
        guard let query = namespace.firstIndex(of: "?") else { return namespace }
        return String(namespace[..<query])
    }

    /// A protocol v4 socket's id, which the client and the server each derive (v5 servers send
    /// the socket's own): the Engine.IO session's id on `/`, `<namespace>#<sid>` on the others.
    public static func protocolV4SocketID(namespace: String, engineSID: String) -> String {
        namespace == "/" ? engineSID : "\(namespace)#\(engineSID)"
    }

    /// The namespace `url`'s path names (`/admin` for `https://example.com/admin` and
    /// `https://example.com/admin/`), or `nil` when it has no path beyond `/`.
    public static func named(by url: URL) -> String? {
        guard var path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.path else { return nil }
        while path.hasSuffix("/") { path.removeLast() }
        return path.isEmpty ? nil : normalized(path)
    }

    /// The namespace to join: the one given, else the one `url` names, else `/`.
    ///
    /// - Throws: ``Conflict`` when both name one and they differ.
    public static func resolve(url: URL, namespace given: String?) throws(Conflict) -> String {
        let inURL = named(by: url)
        switch (inURL, given.map(normalized)) {
        case (nil, nil): return "/"
        case (let inURL?, nil): return inURL
        case (nil, let given?): return given
        case (let inURL?, let given?):
            guard inURL == given else { throw Conflict(url: url.absoluteString, inURL: inURL, given: given) }
            return given
        }
    }

    /// A namespace given both in the URL's path and as an argument, and they differ.
    public struct Conflict: Error, Sendable, Hashable, CustomStringConvertible {
        /// The URL as given.
        public let url: String
        /// The namespace its path names.
        public let inURL: String
        /// The namespace given as an argument.
        public let given: String

        /// A one-line description, for logs.
        public var description: String {
            "\(url) names the namespace \(inURL) but the namespace \(given) was given too: name it one way"
        }
    }
}
