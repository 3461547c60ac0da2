public import Foundation

/// What Line takes: text and a link.
public struct LineMessage: SharePayload {
    public static let destination = "Line"
    /// The message text.
    public var text: String
    /// The link under it.
    public var link: URL

    /// A message with this text and link.
    public init(text: String, link: URL) {
        self.text = text
        self.link = link
    }

    public var summary: String { "\"\(text)\" + link \(link.absoluteString)" }
}

/// Shares to Line: text only, so a playlist lists its songs' titles.
public struct LineSharePolicy: SharePolicy {
    /// The policy.
    public init() {}

    public func visit(_ user: User) -> LineMessage {
        LineMessage(text: "\(user.name) (@\(user.handle))", link: user.profile)
    }

    public func visit(_ song: Song) -> LineMessage {
        LineMessage(text: "♪ \(song.title) — \(song.artist)", link: song.link)
    }

    public func visit(_ playlist: Playlist) -> LineMessage {
        let titles = playlist.songs.map(\.title).joined(separator: ", ")
        return LineMessage(text: "\(playlist.title): \(titles)", link: playlist.link)
    }
}
