public import Foundation

/// What Instagram takes: images and a caption (no links).
public struct InstagramPost: SharePayload {
    public static let destination = "Instagram"
    /// The images, in order (a carousel when several).
    public var images: [URL]
    /// The caption.
    public var caption: String

    /// A post with these images and caption.
    public init(images: [URL], caption: String) {
        self.images = images
        self.caption = caption
    }

    public var summary: String {
        "\(images.count) image\(images.count == 1 ? "" : "s") (\(images.map(\.lastPathComponent).joined(separator: ", "))) + caption \"\(caption)\""
    }
}

/// Shares to Instagram: pictures first, so a playlist brings every song's cover.
public struct InstagramSharePolicy: SharePolicy {
    /// The policy.
    public init() {}

    public func visit(_ user: User) -> InstagramPost {
        InstagramPost(images: [user.avatar], caption: "Say hi to @\(user.handle)")
    }

    public func visit(_ song: Song) -> InstagramPost {
        InstagramPost(images: [song.cover], caption: "\(song.title) — \(song.artist) #nowplaying")
    }

    public func visit(_ playlist: Playlist) -> InstagramPost {
        InstagramPost(images: playlist.covers, caption: "\(playlist.title) by @\(playlist.curator) #playlist")
    }
}
