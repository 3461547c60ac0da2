public import Foundation

/// An ordered list of songs someone put together.
public struct Playlist: Shareable, Codable, Hashable {
    /// A stable id.
    public var id: String
    /// The title.
    public var title: String
    /// The handle of who made it, without "@".
    public var curator: String
    /// The songs, in order.
    public var songs: [Song]
    /// The playlist's public page.
    public var link: URL

    /// A playlist with these details.
    public init(id: String, title: String, curator: String, songs: [Song], link: URL) {
        self.id = id
        self.title = title
        self.curator = curator
        self.songs = songs
        self.link = link
    }

    /// Every song's cover, in order, without repeats.
    public var covers: [URL] {
        var seen: Set<URL> = []
        return songs.map(\.cover).filter { seen.insert($0).inserted }
    }

    public func accept<Policy: SharePolicy>(_ policy: Policy) -> Policy.Payload {
        policy.visit(self)
    }
}
