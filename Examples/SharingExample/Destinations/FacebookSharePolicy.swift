public import Foundation

/// What Facebook takes: text, one image and a link.
public struct FacebookPost: SharePayload {
    public static let destination = "Facebook"
    /// The post's text.
    public var text: String
    /// The one image shown with it (a playlist without songs has none).
    public var image: URL?
    /// Where the post links to.
    public var link: URL

    /// A post with these parts.
    public init(text: String, image: URL?, link: URL) {
        self.text = text
        self.image = image
        self.link = link
    }

    public var summary: String {
        "\"\(text)\" + image \(image?.absoluteString ?? "none") + link \(link.absoluteString)"
    }
}

/// Shares to Facebook: one picture per post, so a playlist shows its first song's cover.
public struct FacebookSharePolicy: SharePolicy {
    /// The policy.
    public init() {}

    public func visit(_ user: User) -> FacebookPost {
        FacebookPost(text: "Follow \(user.name) on Tunes", image: user.avatar, link: user.profile)
    }

    public func visit(_ song: Song) -> FacebookPost {
        FacebookPost(text: "Listening to \(song.title) by \(song.artist)", image: song.cover, link: song.link)
    }

    public func visit(_ playlist: Playlist) -> FacebookPost {
        FacebookPost(
            text: "\(playlist.title) — \(playlist.songs.count) songs picked by @\(playlist.curator)",
            image: playlist.songs.first?.cover,
            link: playlist.link)
    }
}
