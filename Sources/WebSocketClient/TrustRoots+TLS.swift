package import NIOSSL
package import SwitchboardCore

extension TrustRoots {
    /// Client TLS settings trusting these roots: the system's by default, never "trust
    /// everything". The engine's polling requests and every WebSocket use it.
    package func tlsConfiguration() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch self {
        case .system:
            break
        case .pemFile(let path):
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
        case .pem(let text):
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(text.utf8)))
        }
        return configuration
    }
}
