import Foundation

/// Random identifiers in socket.io's style: 20 characters of URL-safe base64 (120 bits).
enum Identifiers {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 15)
        for index in bytes.indices { bytes[index] = generator.next() }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }
}
