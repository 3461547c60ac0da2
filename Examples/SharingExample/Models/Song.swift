public import Foundation

/// One track.
public struct Song: Shareable, Codable, Hashable {
    /// A stable id.
    public var id: String
    /// The title.
    public var title: String
    /// The performing artist.
    public var artist: String
    /// The cover art.
    public var cover: URL
    /// The song's public page.
    public var link: URL

    /// A song with these details.
    public init(id: String, title: String, artist: String, cover: URL, link: URL) {
        self.id = id
        self.title = title
        self.artist = artist
        self.cover = cover
        self.link = link
    }

    public func accept<Policy: SharePolicy>(_ policy: Policy) -> Policy.Payload {
        policy.visit(self)
    }
}
