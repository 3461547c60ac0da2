import Foundation
import NIOConcurrencyHelpers
package import NIOHTTP1

/// The cookies one server set, kept for a client's life and sent back on every request to it,
/// as a browser does for its origin: what sticky sessions behind a load balancer rely on
/// (HAProxy's `cookie` directive, nginx's `sticky cookie`, socket.io's `cookie` option).
///
/// One jar serves one server (a manager's URL), so cookies are told apart by name only: a
/// `Set-Cookie` replaces the cookie of its name, one with `Max-Age=0` (or less) or an `Expires`
/// in the past removes it. `Domain`, `Path`, `Secure` and `HttpOnly` do not narrow anything here
/// (every request goes to the same server, under the Engine.IO path).
package final class CookieJar: Sendable {
    private let cookies = NIOLockedValueBox<[(name: String, value: String)]>([])

    package init() {}

    /// The `Cookie` header's value for the next request, or `nil` when the jar is empty.
    package var header: String? {
        let cookies = cookies.withLockedValue { $0 }
        return cookies.isEmpty ? nil : cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Takes in every `Set-Cookie` of a response.
    package func store(from headers: HTTPHeaders) {
        let lines = headers["Set-Cookie"]
        guard !lines.isEmpty else { return }
        cookies.withLockedValue { cookies in
            for line in lines {
                guard let cookie = Self.parse(line) else { continue }
                cookies.removeAll { $0.name == cookie.name }
                if !cookie.expired { cookies.append((cookie.name, cookie.value)) }
            }
        }
    }

    /// A `Set-Cookie` line's name and value, and whether it asks for the cookie to go; `nil` for
    /// a line without `name=`.
    static func parse(_ line: String) -> (name: String, value: String, expired: Bool)? {
        let parts = line.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = String(pair[..<equals])
        guard !name.isEmpty else { return nil }
        var value = String(pair[pair.index(after: equals)...])
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
        var expired = false
        for attribute in parts.dropFirst() {
            let lower = attribute.lowercased()
            if lower.hasPrefix("max-age="), let seconds = Int(lower.dropFirst("max-age=".count)), seconds <= 0 {
                expired = true
            } else if lower.hasPrefix("expires="), lower.contains("1970") {
                // The usual way to delete a cookie; other past dates are not parsed.
                expired = true
            }
        }
        return (name, value, expired)
    }
}
