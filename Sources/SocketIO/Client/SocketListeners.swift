import NIOConcurrencyHelpers
import SocketIOProtocol
import SwitchboardCore

/// A client socket's listeners and the event sequences made from them: an owner of its own,
/// beside the socket's connection state. Registering a listener never waits for a connection
/// transition, and an event's dispatch takes only this lock.
///
/// All the state is one value (``ListenerRegistry`` and the sequences' enders); each change or
/// read is one section under the lock, and handlers run after it, on the manager's executor
/// (``dispatch(_:includeAny:on:)``).
final class SocketListeners: Sendable {
    private struct State: Sendable {
        var registry = ListenerRegistry<SocketEvent>()
        /// Ends the event sequences made by `events(named:)` and `allEvents()` (manager closed).
        var streamEnders: [Int: @Sendable () -> Void] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// One change or read of the registry (handlers it hands out run after the lock).
    func registry<T>(_ body: (inout ListenerRegistry<SocketEvent>) -> T) -> T {
        state.withLockedValue { body(&$0.registry) }
    }

    /// Registers the listener of a sequence with what ends the sequence when the manager closes.
    func stream(_ add: (inout ListenerRegistry<SocketEvent>) -> Int, endedBy finish: @escaping @Sendable () -> Void) -> Int {
        state.withLockedValue { state in
            let id = add(&state.registry)
            state.streamEnders[id] = finish
            return id
        }
    }

    /// A sequence's consumer stopped: its listener and its ender go.
    func streamEnded(_ id: Int) {
        state.withLockedValue { state in
            state.registry.remove(id)
            state.streamEnders.removeValue(forKey: id)
        }
    }

    /// Runs the listeners of `event` on `handlers` (catch-alls first), after the lock.
    func dispatch(_ event: SocketEvent, includeAny: Bool, on handlers: HandlerBursts) {
        let listeners = registry { $0.take(for: event.name, includeAny: includeAny) }
        guard !listeners.isEmpty else { return }
        handlers.run {
            for listener in listeners { listener(event) }
        }
    }

    /// Runs the catch-alls of outgoing events on `handlers`, for the events among `packets`.
    func reportOutgoing(_ packets: [SocketPacket], on handlers: HandlerBursts) {
        let listeners = registry { $0.outgoing }
        guard !listeners.isEmpty else { return }
        let events = packets.compactMap { packet in
            packet.eventName.map { SocketEvent(name: $0, items: packet.arguments) }
        }
        handlers.run {
            for event in events {
                for listener in listeners { listener(event) }
            }
        }
    }

    /// Hands out what ends every sequence (the manager closed), to run after the lock.
    func takeStreamEnders() -> [@Sendable () -> Void] {
        state.withLockedValue { state in
            defer { state.streamEnders = [:] }
            return Array(state.streamEnders.values)
        }
    }
}
