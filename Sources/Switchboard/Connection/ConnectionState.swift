/// The life of a ``Connection``, exactly as SPEC.md's table allows:
///
/// | from | allowed to |
/// |---|---|
/// | created | connected, disconnected |
/// | connected | disconnected |
/// | disconnected | reconnecting, released |
/// | reconnecting | connected, disconnected |
/// | released | nothing (terminal) |
public enum ConnectionState: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Made, never opened.
    case created
    /// Open: commands run now.
    case connected
    /// Closed; queued commands wait.
    case disconnected
    /// Being opened again.
    case reconnecting
    /// Gone for good; every operation throws.
    case released

    /// A one-line description, for logs.
    public var description: String { rawValue }
}
