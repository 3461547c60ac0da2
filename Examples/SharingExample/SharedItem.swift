public import SocketIOProtocol

/// A shared item as it travels in a message: `{"kind":"playlist","item":{…}}`.
///
/// ```swift
/// // message body: {"type":"share","from":"ada","share":{"kind":"song","item":{…}}}
/// let item = try SharedItem(messageBody: message.body)
/// let post = item.accept(FacebookSharePolicy())
/// ```
public enum SharedItem: Shareable, Codable, Hashable {
    case user(User)
    case song(Song)
    case playlist(Playlist)

    /// The kinds, as written in `kind`.
    public enum Kind: String, Codable, Sendable {
        case user, song, playlist
    }

    /// The kind of item.
    public var kind: Kind {
        switch self {
        case .user: .user
        case .song: .song
        case .playlist: .playlist
        }
    }

    /// The item under `share` in a share message's body.
    public init(messageBody body: JSONValue) throws {
        self = try JSONValueDecoder().decode(SharedItem.self, from: body["share"] ?? .null)
    }

    /// The item as JSON, as it goes under `share` in a message body.
    public var jsonValue: JSONValue {
        get throws { try JSONValueEncoder().encode(self) }
    }

    public func accept<Policy: SharePolicy>(_ policy: Policy) -> Policy.Payload {
        switch self {
        case .user(let user): user.accept(policy)
        case .song(let song): song.accept(policy)
        case .playlist(let playlist): playlist.accept(policy)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case kind, item
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .kind) {
        case .user: self = .user(try container.decode(User.self, forKey: .item))
        case .song: self = .song(try container.decode(Song.self, forKey: .item))
        case .playlist: self = .playlist(try container.decode(Playlist.self, forKey: .item))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        switch self {
        case .user(let user): try container.encode(user, forKey: .item)
        case .song(let song): try container.encode(song, forKey: .item)
        case .playlist(let playlist): try container.encode(playlist, forKey: .item)
        }
    }
}
