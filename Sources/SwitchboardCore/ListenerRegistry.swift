/// The listeners of one socket (client or server): handlers by event name, catch-alls, and
/// catch-alls of outgoing events. A plain value kept under the socket's lock; the socket runs
/// what ``take(for:includeAny:)`` hands out after unlocking.
///
/// On every event's path: no key paths here (in a generic type used from another module, each
/// `\.handler` was instantiated at run time, demangling included, on every event: it halved
/// `sio bench`'s throughput), and the methods are inlinable so the sockets' modules specialize them.
package struct ListenerRegistry<Event: Sendable>: Sendable {
    package typealias Handler = @Sendable (Event) -> Void

    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline let id: Int
        @usableFromInline let once: Bool
        @usableFromInline let handler: Handler

        @usableFromInline
        init(id: Int, once: Bool, handler: @escaping Handler) {
            self.id = id
            self.once = once
            self.handler = handler
        }
    }

    @usableFromInline var named: [String: [Entry]] = [:]
    @usableFromInline var any: [Entry] = []
    @usableFromInline var anyOutgoing: [Entry] = []
    @usableFromInline var nextID = 0

    @inlinable
    package init() {}

    /// Adds a handler for `event` (removed after its first call when `once`); returns its id.
    package mutating func add(_ event: String, once: Bool, _ handler: @escaping Handler) -> Int {
        let id = makeID()
        named[event, default: []].append(Entry(id: id, once: once, handler: handler))
        return id
    }

    /// Adds a handler for every incoming event; returns its id.
    package mutating func addAny(_ handler: @escaping Handler) -> Int {
        let id = makeID()
        any.append(Entry(id: id, once: false, handler: handler))
        return id
    }

    /// Adds a handler for every outgoing event; returns its id.
    package mutating func addAnyOutgoing(_ handler: @escaping Handler) -> Int {
        let id = makeID()
        anyOutgoing.append(Entry(id: id, once: false, handler: handler))
        return id
    }

    /// Removes the handler with this id, wherever it is. An event name left without handlers
    /// leaves the table (one key per name ever listened to, `once("reply:\(id)")`, grew it for good).
    package mutating func remove(_ id: Int) {
        if let key = named.first(where: { $0.value.contains { $0.id == id } })?.key {
            let rest = named[key, default: []].filter { $0.id != id }
            named[key] = rest.isEmpty ? nil : rest
        }
        any.removeAll { $0.id == id }
        anyOutgoing.removeAll { $0.id == id }
    }

    package mutating func removeAll(named event: String) { named[event] = nil }
    package mutating func removeAllAny() { any.removeAll() }
    package mutating func removeAllAnyOutgoing() { anyOutgoing.removeAll() }

    /// The handlers for an incoming event, catch-alls first; `once` listeners are removed.
    @inlinable
    package mutating func take(for event: String, includeAny: Bool) -> [Handler] {
        var handlers: [Handler] = []
        if includeAny {
            for entry in any { handlers.append(entry.handler) }
        }
        if let entries = named[event] {
            var once = false
            for entry in entries {
                handlers.append(entry.handler)
                once = once || entry.once
            }
            if once {
                let rest = entries.filter { !$0.once }
                named[event] = rest.isEmpty ? nil : rest
            }
        }
        return handlers
    }

    /// How many event names have handlers.
    package var eventNameCount: Int { named.count }

    /// The catch-alls of outgoing events.
    @inlinable
    package var outgoing: [Handler] { anyOutgoing.map { $0.handler } }

    private mutating func makeID() -> Int {
        nextID += 1
        return nextID
    }
}
