/// A destination's rules for sharing: how it turns each kind of shared item into its payload.
///
/// One `visit` per concrete model, and deliberately no default implementations: adding a model
/// means adding its `visit` here, and every destination fails to compile until it handles it.
///
/// ```swift
/// let post = playlist.accept(InstagramSharePolicy())   // InstagramPost with every song cover
/// ```
public protocol SharePolicy: Sendable {
    /// What this destination sends.
    associatedtype Payload: SharePayload

    /// The payload for sharing a user.
    func visit(_ user: User) -> Payload
    /// The payload for sharing a song.
    func visit(_ song: Song) -> Payload
    /// The payload for sharing a playlist.
    func visit(_ playlist: Playlist) -> Payload
}

/// Something that can be shared: it hands itself to a policy's matching `visit`.
public protocol Shareable: Sendable {
    /// The payload `policy` builds for this item (`policy.visit(self)`).
    func accept<Policy: SharePolicy>(_ policy: Policy) -> Policy.Payload
}

/// A payload a destination sends, with a one-line summary for logs and the demo.
public protocol SharePayload: Sendable, Hashable {
    /// The destination's name: "Facebook", "Line", "Instagram".
    static var destination: String { get }
    /// What would be posted, on one line.
    var summary: String { get }
}

extension Shareable {
    /// The payload of any destination, for code that holds destinations in a list.
    ///
    /// ```swift
    /// let policies: [any SharePolicy] = [FacebookSharePolicy(), LineSharePolicy(), InstagramSharePolicy()]
    /// for policy in policies { print(item.payload(for: policy).summary) }
    /// ```
    public func payload(for policy: any SharePolicy) -> any SharePayload {
        accept(policy)
    }
}
