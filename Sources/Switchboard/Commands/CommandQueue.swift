import DequeModule

/// The offline queue: commands made while a connection is not up, kept in the order they were
/// made and run first-in first-out once it is.
///
/// A value type with no I/O: the owner keeps it under its lock. Removal by id (a timed-out or
/// cancelled command) is O(1): the id is forgotten and skipped when it reaches the front.
/// Bounded: past ``limit`` commands ``enqueue(_:id:)`` refuses with
/// ``ConnectionError/queueFull(limit:)``, so the caller hears of it and nothing is dropped silently.
struct CommandQueue<Command: Sendable>: Sendable {
    /// The most commands the queue holds.
    let limit: Int
    private var order: Deque<UInt64> = []
    private var live: [UInt64: Command] = [:]

    init(limit: Int) {
        self.limit = max(limit, 0)
    }

    /// How many commands wait.
    var count: Int { live.count }
    var isEmpty: Bool { live.isEmpty }

    /// Whether the command `id` waits in the queue.
    func contains(_ id: UInt64) -> Bool { live[id] != nil }

    /// Appends `command` under `id` (ids are the caller's and unique).
    mutating func enqueue(_ command: Command, id: UInt64) throws(ConnectionError) {
        guard live.count < limit else { throw .queueFull(limit: limit) }
        live[id] = command
        order.append(id)
    }

    /// Puts `command` back (it was taken to run, and the transport refused it before sending):
    /// ahead of every command with a greater id, so with ids given in the order the commands
    /// were made, commands refused together run again in that order, before newer ones. Never
    /// refused for the limit: it held a place, or was on its way to the driver.
    mutating func putBack(_ command: Command, id: UInt64) {
        live[id] = command
        // Refused commands are the oldest: the place is found at once, or after a few.
        order.insert(id, at: order.firstIndex { $0 > id } ?? order.endIndex)
    }

    /// The oldest command still waiting, removed from the queue.
    mutating func popFirst() -> (id: UInt64, command: Command)? {
        while let id = order.popFirst() {
            if let command = live.removeValue(forKey: id) { return (id, command) }
        }
        return nil
    }

    /// Takes `id` out of the queue (it timed out or its caller went away); `nil` if not queued.
    mutating func remove(_ id: UInt64) -> Command? {
        guard let command = live.removeValue(forKey: id) else { return nil }
        if live.isEmpty {
            order.removeAll()
        } else if order.count > 2 * live.count + 32 {
            // Forgotten ids pile up behind one that waits long (a send queued while requests
            // come and time out): compacted, so the order stays within twice what is live.
            order.removeAll { live[$0] == nil }
        }
        return command
    }

    /// How many ids the order holds, forgotten ones included (at most twice ``count``, plus 32).
    var orderCount: Int { order.count }

    /// Every waiting command, oldest first; the queue is empty afterwards.
    mutating func removeAll() -> [(id: UInt64, command: Command)] {
        var drained: [(id: UInt64, command: Command)] = []
        drained.reserveCapacity(live.count)
        while let next = popFirst() { drained.append(next) }
        order.removeAll()
        return drained
    }
}
