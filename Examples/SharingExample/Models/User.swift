public import Foundation

/// A person on the service.
public struct User: Shareable, Codable, Hashable {
    /// A stable id.
    public var id: String
    /// The display name.
    public var name: String
    /// The handle, without "@".
    public var handle: String
    /// The profile picture.
    public var avatar: URL
    /// The public profile page.
    public var profile: URL

    /// A user with these details.
    public init(id: String, name: String, handle: String, avatar: URL, profile: URL) {
        self.id = id
        self.name = name
        self.handle = handle
        self.avatar = avatar
        self.profile = profile
    }

    public func accept<Policy: SharePolicy>(_ policy: Policy) -> Policy.Payload {
        policy.visit(self)
    }
}
