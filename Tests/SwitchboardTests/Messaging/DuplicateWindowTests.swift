import SocketIOProtocol
import Switchboard
import SwitchboardTestSupport
import Testing

@Suite("MessageCenter duplicates")
struct DuplicateWindowTests {
    func center(_ window: DuplicateWindow, clock: ManualClock = ManualClock()) -> MessageCenter {
        var configuration = MessageCenter.Configuration()
        configuration.duplicateWindow = window
        configuration.clock = clock
        return MessageCenter(configuration: configuration)
    }

    @Test func aRepeatedIdIsDroppedAndCounted() async {
        let center = center(DuplicateWindow())
        let recorder = Recorder("r")
        center.subscribe(recorder)
        #expect(await center.dispatch(orderMessage("00544", order: "A")).delivery != nil)
        #expect(await center.dispatch(orderMessage("00544", order: "A")) == .duplicate("00544"))
        #expect(await center.dispatch(orderMessage("00545", order: "A")).delivery != nil)
        #expect(recorder.ids == ["00544", "00545"])
        #expect(center.statistics == {
            var expected = MessageCenterStatistics()
            expected.dispatched = 2
            expected.duplicates = 1
            return expected
        }())
    }

    @Test func idsAreJSONTypedToo() async {
        let center = center(DuplicateWindow())
        await center.dispatch(["msg_id": 1, "msg_body": [:]])
        #expect(await center.dispatch(["msg_id": "1", "msg_body": [:]]).delivery != nil, "\"1\" is not 1")
        #expect(await center.dispatch(["msg_id": 1.0, "msg_body": [:]]) == .duplicate(1))
    }

    @Test func theCountBoundForgetsTheOldest() async {
        let center = center(DuplicateWindow(count: 3, duration: nil))
        for id in ["a", "b", "c", "d"] { await center.dispatch(message(id, "x")) }
        // "a" was pushed out by "d"; "b", "c", "d" are remembered.
        #expect(await center.dispatch(message("a", "x")).delivery != nil)
        #expect(await center.dispatch(message("c", "x")) == .duplicate("c"))
        #expect(center.statistics.duplicates == 1)
    }

    @Test func theTimeBoundUsesTheInjectedClock() async {
        let clock = ManualClock()
        let center = center(DuplicateWindow(count: nil, duration: .seconds(60)), clock: clock)
        await center.dispatch(message("a", "x"))
        clock.advance(by: .seconds(59))
        #expect(await center.dispatch(message("a", "x")) == .duplicate("a"), "within the window")
        await center.dispatch(message("b", "x"))
        clock.advance(by: .seconds(1))
        // "a" was recorded 60 s ago: out of the window. "b" 1 s ago: still in it.
        #expect(await center.dispatch(message("a", "x")).delivery != nil)
        #expect(await center.dispatch(message("b", "x")) == .duplicate("b"))
    }

    @Test func aDuplicateDoesNotExtendTheWindow() async {
        let clock = ManualClock()
        let center = center(DuplicateWindow(count: nil, duration: .seconds(10)), clock: clock)
        await center.dispatch(message("a", "x"))
        clock.advance(by: .seconds(6))
        #expect(await center.dispatch(message("a", "x")) == .duplicate("a"))
        clock.advance(by: .seconds(4))
        #expect(await center.dispatch(message("a", "x")).delivery != nil, "10 s after the first, not the duplicate")
    }

    @Test func bothBoundsApplyWhicheverComesFirst() async {
        let clock = ManualClock()
        let center = center(DuplicateWindow(count: 2, duration: .seconds(10)), clock: clock)
        await center.dispatch(message("a", "x"))
        await center.dispatch(message("b", "x"))
        await center.dispatch(message("c", "x"))          // pushes out "a" by count
        #expect(await center.dispatch(message("a", "x")).delivery != nil)
        clock.advance(by: .seconds(10))                     // "c" and "a" expire by time
        #expect(await center.dispatch(message("c", "x")).delivery != nil)
    }

    @Test func disabledRemembersNothing() async {
        let center = center(.disabled)
        #expect(!DuplicateWindow.disabled.isEnabled)
        #expect(!DuplicateWindow(count: 0).isEnabled)
        await center.dispatch(message("a", "x"))
        #expect(await center.dispatch(message("a", "x")).delivery != nil)
    }

    @Test func rejectedInputIsNotRememberedAndDoesNotCountAsDispatched() async {
        let center = center(DuplicateWindow())
        #expect(await center.dispatch(["msg_id": "a"]) == .rejected(.missingBody("msg_body")))
        #expect(await center.dispatch(message("a", "x")).delivery != nil)
        #expect(center.statistics.rejected == 1)
        #expect(center.statistics.dispatched == 1)
    }
}
