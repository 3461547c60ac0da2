import NIOConcurrencyHelpers
import NIOCore
import SwitchboardCore

/// The connections a long-poll GET was held on, so that a session hears when the one holding
/// its GET closes, or the client closed its side of it (``EngineSession/poll(on:)``).
///
/// One watch per connection, made at its first held GET and gone when it closes: a kept-alive
/// connection carries thousands of GETs, and a callback on its `closeFuture` per GET would pile
/// up for as long as it lives. Each held GET replaces the connection's `lost` call; the
/// session ignores a call for a GET it answered already.
final class HeldPollConnections: Sendable {
    private final class Watch: Sendable {
        /// In a `Callback`, not as the box's whole value (see `CallOnce`: one more thunk per access).
        let lost: NIOLockedValueBox<Callback<Void>?>

        init(_ lost: @escaping @Sendable () -> Void) {
            self.lost = NIOLockedValueBox(Callback(lost))
        }

        /// Calls the GET's `lost`, once.
        func fire() {
            let taken = lost.withLockedValue { lost in
                defer { lost = nil }
                return lost
            }
            taken?(())
        }
    }

    private let watches = NIOLockedValueBox<[ObjectIdentifier: Watch]>([:])

    /// Calls `lost` when `connection` closes, unless a later GET held on it replaced it.
    func watch(_ connection: any Channel, lost: @escaping @Sendable () -> Void) {
        let id = ObjectIdentifier(connection)
        let made: Bool = watches.withLockedValue { watches in
            if let watch = watches[id] {
                let replacement = Callback(lost)
                watch.lost.withLockedValue { $0 = replacement }
                return false
            }
            watches[id] = Watch(lost)
            return true
        }
        guard made else { return }
        // Runs at once when the connection closed already.
        connection.closeFuture.whenComplete { [self] _ in
            watches.withLockedValue { $0.removeValue(forKey: id) }?.fire()
        }
    }

    /// The client closed its side of `connection` (a FIN; the connection stays open for a
    /// client that half-closes after its request, so its `closeFuture` does not say it yet).
    func inputClosed(_ connection: any Channel) {
        watches.withLockedValue { $0[ObjectIdentifier(connection)] }?.fire()
    }
}

/// In front of every HTTP connection that was not upgraded: passes the client's FIN to
/// ``HeldPollConnections``.
final class ClientCloseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let heldPolls: HeldPollConnections

    init(heldPolls: HeldPollConnections) {
        self.heldPolls = heldPolls
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { heldPolls.inputClosed(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }
}
