/// Which certificates a secure connection (`https`/`wss`) trusts: the client's, the platform
/// layer's and the `sio` commands' option.
public enum TrustRoots: Sendable, Hashable {
    /// The system's trust store.
    case system
    /// Exactly the certificates in this PEM file (for test servers with self-signed certificates).
    case pemFile(String)
    /// Exactly the certificates in this PEM text.
    case pem(String)
}
