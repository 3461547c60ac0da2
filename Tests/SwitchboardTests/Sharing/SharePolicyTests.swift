import Foundation
import SharingExample
import Testing

/// Every (model, destination) pair builds the payload that destination needs.
@Suite("Share policies")
struct SharePolicyTests {
    @Test func facebookGetsTextOneImageAndALink() {
        let policy = FacebookSharePolicy()
        #expect(Fixtures.ada.accept(policy) == FacebookPost(
            text: "Follow Ada Lovelace on Tunes",
            image: URL(string: "https://cdn.example/avatars/ada.jpg")!,
            link: URL(string: "https://tunes.example/@ada")!))
        #expect(Fixtures.blue.accept(policy) == FacebookPost(
            text: "Listening to Blue in Green by Miles Davis",
            image: URL(string: "https://cdn.example/covers/kind-of-blue.jpg")!,
            link: URL(string: "https://tunes.example/songs/s1")!))
        #expect(Fixtures.roadTrip.accept(policy) == FacebookPost(
            text: "Road trip — 3 songs picked by @ada",
            image: URL(string: "https://cdn.example/covers/kind-of-blue.jpg")!,
            link: URL(string: "https://tunes.example/playlists/p1")!))
    }

    @Test func lineGetsTextAndALink() {
        let policy = LineSharePolicy()
        #expect(Fixtures.ada.accept(policy) == LineMessage(
            text: "Ada Lovelace (@ada)", link: URL(string: "https://tunes.example/@ada")!))
        #expect(Fixtures.blue.accept(policy) == LineMessage(
            text: "♪ Blue in Green — Miles Davis", link: URL(string: "https://tunes.example/songs/s1")!))
        #expect(Fixtures.roadTrip.accept(policy) == LineMessage(
            text: "Road trip: Blue in Green, Naima, Take Five", link: URL(string: "https://tunes.example/playlists/p1")!))
    }

    @Test func instagramGetsImagesAndACaptionWithEveryCoverOfAPlaylist() {
        let policy = InstagramSharePolicy()
        #expect(Fixtures.ada.accept(policy) == InstagramPost(
            images: [URL(string: "https://cdn.example/avatars/ada.jpg")!], caption: "Say hi to @ada"))
        #expect(Fixtures.blue.accept(policy) == InstagramPost(
            images: [URL(string: "https://cdn.example/covers/kind-of-blue.jpg")!],
            caption: "Blue in Green — Miles Davis #nowplaying"))
        #expect(Fixtures.roadTrip.accept(policy) == InstagramPost(
            images: [
                URL(string: "https://cdn.example/covers/kind-of-blue.jpg")!,
                URL(string: "https://cdn.example/covers/giant-steps.jpg")!,
                URL(string: "https://cdn.example/covers/time-out.jpg")!,
            ],
            caption: "Road trip by @ada #playlist"))
    }

    @Test func aPlaylistRepeatsNoCoverAndAnEmptyOneHasNoImage() {
        var playlist = Fixtures.roadTrip
        playlist.songs.append(Fixtures.blue)
        #expect(playlist.accept(InstagramSharePolicy()).images.count == 3)
        playlist.songs = []
        #expect(playlist.accept(FacebookSharePolicy()).image == nil)
        #expect(playlist.accept(InstagramSharePolicy()).images.isEmpty)
    }

    @Test func destinationsInAListUseTheSameVisitor() {
        let policies: [any SharePolicy] = [FacebookSharePolicy(), LineSharePolicy(), InstagramSharePolicy()]
        let payloads = policies.map { Fixtures.roadTrip.payload(for: $0) }
        #expect(payloads.map { type(of: $0).destination } == ["Facebook", "Line", "Instagram"])
        #expect(payloads[2].summary.hasPrefix("3 images (kind-of-blue.jpg, giant-steps.jpg, time-out.jpg)"))
    }

    /// A destination added later — here, one the tests make up — touches no model.
    @Test func aNewDestinationNeedsNoModelChange() {
        struct Mastodon: SharePolicy {
            struct Toot: SharePayload {
                static let destination = "Mastodon"
                let text: String
                var summary: String { text }
            }
            func visit(_ user: User) -> Toot { Toot(text: "@\(user.handle)") }
            func visit(_ song: Song) -> Toot { Toot(text: song.title) }
            func visit(_ playlist: Playlist) -> Toot { Toot(text: "\(playlist.title) (\(playlist.songs.count))") }
        }
        #expect(Fixtures.roadTrip.accept(Mastodon()).text == "Road trip (3)")
        #expect(SharedItem.user(Fixtures.ada).accept(Mastodon()).text == "@ada")
    }
}
