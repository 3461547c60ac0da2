/// Engine.IO paths as socket.io writes them (`/socket.io/`): the client's `path` option and the
/// server's, and the server's raw Engine.IO mounts.
package enum EnginePath {
    /// `path` with a leading and a trailing `/` where it lacks them (`socket.io` → `/socket.io/`).
    package static func normalized(_ path: String) -> String {
        var normalized = path.hasPrefix("/") ? path : "/" + path
        if !normalized.hasSuffix("/") { normalized += "/" }
        return normalized
    }
}
