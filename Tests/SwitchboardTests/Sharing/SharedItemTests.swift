import Foundation
import SharingExample
import SocketIOProtocol
import Switchboard
import Testing

@Suite("Shared items through the message center")
struct SharedItemTests {
    @Test(arguments: [SharedItem.user(Fixtures.ada), .song(Fixtures.blue), .playlist(Fixtures.roadTrip)])
    func roundTripsThroughJSON(item: SharedItem) throws {
        let json = try item.jsonValue
        #expect(json["kind"] == .string(item.kind.rawValue))
        #expect(try SharedItem(messageBody: ["share": json]) == item)
    }

    @Test func decodesWhatTheDemoServerSends() throws {
        // The wire form, written by hand as a server would (URLs as strings).
        let body: JSONValue = [
            "type": "share", "from": "ada",
            "share": ["kind": "song", "item": [
                "id": "s1", "title": "Blue in Green", "artist": "Miles Davis",
                "cover": "https://cdn.example/covers/kind-of-blue.jpg", "link": "https://tunes.example/songs/s1",
            ]],
        ]
        #expect(try SharedItem(messageBody: body) == .song(Fixtures.blue))
        #expect(throws: (any Error).self) { try SharedItem(messageBody: ["share": ["kind": "album", "item": [:]]]) }
        #expect(throws: (any Error).self) { try SharedItem(messageBody: ["type": "share"]) }
    }

    @Test func aSharedPlaylistArrivesAndIsRenderedForEachDestination() async throws {
        let center = MessageCenter()
        let rendered = center.messages(matching: [.value(at: "msg_body.type", equals: "share")])
        await center.dispatch(orderMessage("1", order: "A"))
        await center.dispatch(["msg_id": "share-1", "msg_body": ["type": "share", "share": try SharedItem.playlist(Fixtures.roadTrip).jsonValue]])
        var iterator = rendered.makeAsyncIterator()
        let message = try #require(await iterator.next())
        let item = try SharedItem(messageBody: message.body)
        #expect(item.accept(FacebookSharePolicy()).image == Fixtures.blue.cover)
        #expect(item.accept(LineSharePolicy()).text == "Road trip: Blue in Green, Naima, Take Five")
        #expect(item.accept(InstagramSharePolicy()).images == [Fixtures.blue.cover, Fixtures.naima.cover, Fixtures.takeFive.cover])
    }
}
