import Foundation
import SharingExample

enum Fixtures {
    static let ada = User(
        id: "u1", name: "Ada Lovelace", handle: "ada",
        avatar: URL(string: "https://cdn.example/avatars/ada.jpg")!,
        profile: URL(string: "https://tunes.example/@ada")!)

    static let blue = Song(
        id: "s1", title: "Blue in Green", artist: "Miles Davis",
        cover: URL(string: "https://cdn.example/covers/kind-of-blue.jpg")!,
        link: URL(string: "https://tunes.example/songs/s1")!)

    static let naima = Song(
        id: "s2", title: "Naima", artist: "John Coltrane",
        cover: URL(string: "https://cdn.example/covers/giant-steps.jpg")!,
        link: URL(string: "https://tunes.example/songs/s2")!)

    static let takeFive = Song(
        id: "s3", title: "Take Five", artist: "Dave Brubeck",
        cover: URL(string: "https://cdn.example/covers/time-out.jpg")!,
        link: URL(string: "https://tunes.example/songs/s3")!)

    static let roadTrip = Playlist(
        id: "p1", title: "Road trip", curator: "ada", songs: [blue, naima, takeFive],
        link: URL(string: "https://tunes.example/playlists/p1")!)
}
