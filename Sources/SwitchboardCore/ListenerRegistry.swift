/// The listeners of one socket (client or server). A plain value kept under the socket's lock.
package struct ListenerRegistry: Sendable {
    package typealias EventHandler = @Sendable (SocketEvent) -> Void
    package typealias AnyHandler = @Sendable (SocketEvent) -> Void

    private struct Entry: Sendable {
        let id: ListenerID
        let once: Bool
        let handler: EventHandler
    }

    private var named: [String: [Entry]] = [:]
    private var any: [Entry] = []
    private var anyOutgoing: [Entry] = []
    private var nextID = 0

    package init() {}

    package mutating func add(_ event: String, once: Bool, _ handler: @escaping EventHandler) -> ListenerID {
        let id = makeID()
        named[event, default: []].append(Entry(id: id, once: once, handler: handler))
        return id
    }

    package mutating func addAny(_ handler: @escaping AnyHandler) -> ListenerID {
        let id = makeID()
        any.append(Entry(id: id, once: false, handler: handler))
        return id
    }

    package mutating func addAnyOutgoing(_ handler: @escaping AnyHandler) -> ListenerID {
        let id = makeID()
        anyOutgoing.append(Entry(id: id, once: false, handler: handler))
        return id
    }

    package mutating func remove(_ id: ListenerID) {
        for key in named.keys { named[key]?.removeAll { $0.id == id } }
        any.removeAll { $0.id == id }
        anyOutgoing.removeAll { $0.id == id }
    }

    package mutating func removeAll(named event: String) { named[event] = nil }
    package mutating func removeAllAny() { any.removeAll() }
    package mutating func removeAllAnyOutgoing() { anyOutgoing.removeAll() }

    /// The handlers for an incoming event, catch-alls first; `once` listeners are removed.
    package mutating func take(for event: String, includeAny: Bool) -> [EventHandler] {
        var handlers: [EventHandler] = includeAny ? any.map(\.handler) : []
        if let entries = named[event] {
            handlers.append(contentsOf: entries.map(\.handler))
            if entries.contains(where: \.once) { named[event] = entries.filter { !$0.once } }
        }
        return handlers
    }

    package var outgoing: [AnyHandler] { anyOutgoing.map(\.handler) }

    private mutating func makeID() -> ListenerID {
        nextID += 1
        return ListenerID(value: nextID)
    }
}
