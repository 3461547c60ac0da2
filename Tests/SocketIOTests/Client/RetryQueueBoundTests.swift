import Foundation
@testable import SocketIO
import SocketIOProtocol
import Testing

/// With `retries`, at-least-once emits made while not connected wait in the retry queue; it is
/// bounded by `sendBufferLimit` like the offline buffer, and past it the emit throws. Before,
/// the retry queue took every one (the bound was checked only for plain emits), so an app that
/// kept emitting while offline grew without limit.
@Suite struct RetryQueueBoundTests {
    @Test func atLeastOnceEmitsWhileNotConnectedAreBoundedBySendBufferLimit() throws {
        var configuration = Manager.Configuration()
        configuration.retries = 1
        configuration.sendBufferLimit = 2
        let manager = try Manager(url: URL(string: "http://127.0.0.1:1")!, configuration: configuration)
        let socket = manager.socket()
        var ends: [@Sendable () -> Void] = []
        for number in 1...2 {
            ends.append(try socket.emitAwaitingAck("echo", items: [.number(Double(number))]) { _ in })
        }
        #expect(throws: SocketIOError.notConnected) {
            _ = try socket.emitAwaitingAck("echo", items: [3]) { _ in }
        }
        ends[0]()
        ends.append(try socket.emitAwaitingAck("echo", items: [4]) { _ in })
        for end in ends { end() }
    }
}
