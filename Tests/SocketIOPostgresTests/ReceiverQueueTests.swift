import Testing

@testable import SocketIOPostgres

@Suite("Receiver queue: delivered where they arrive, unless something waits before them")
struct ReceiverQueueTests {
    @Test("messages carried in their notification are delivered at once, one after the other")
    func immediate() {
        var queue = ReceiverQueue<Int>()
        #expect(queue.arrived(1, immediate: true) == .deliver)
        #expect(queue.arrived(2, immediate: true) == .deliver)
        #expect(queue.next() == nil)
    }

    @Test("an attachment starts the drain; what comes after it waits behind it, in order, even a small one")
    func attachmentFirst() {
        var queue = ReceiverQueue<Int>()
        #expect(queue.arrived(1, immediate: false) == .startDrain)
        #expect(queue.arrived(2, immediate: true) == .queued)
        #expect(queue.arrived(3, immediate: false) == .queued)
        #expect(queue.next() == 1)
        #expect(queue.arrived(4, immediate: true) == .queued)
        #expect(queue.next() == 2)
        #expect(queue.next() == 3)
        #expect(queue.next() == 4)
        #expect(queue.next() == nil)
        // Drained: the next small one goes straight through again.
        #expect(queue.arrived(5, immediate: true) == .deliver)
    }

    @Test("during a catch-up every arrival queues; the drain that follows delivers them after the journal's rows")
    func catchUp() {
        var queue = ReceiverQueue<Int>()
        queue.beginCatchUp()
        #expect(queue.arrived(1, immediate: true) == .queued)
        #expect(queue.arrived(2, immediate: false) == .queued)
        #expect(queue.next() == 1)
        #expect(queue.next() == 2)
        #expect(queue.next() == nil)
        #expect(queue.arrived(3, immediate: true) == .deliver)
    }

    @Test("once stopped, nothing queued is handed out and arrivals are dropped")
    func stop() {
        var queue = ReceiverQueue<Int>()
        #expect(queue.arrived(1, immediate: false) == .startDrain)
        #expect(queue.arrived(2, immediate: true) == .queued)
        queue.stop()
        #expect(queue.next() == nil)
        #expect(queue.arrived(3, immediate: true) == .dropped)
        #expect(queue.stopped)
    }

    @Test("a prepared statement's name is the same for the same text, and differs for another table")
    func preparedNames() {
        let first = PreparedQuery.Text(sql: "SELECT count(pg_notify($1, p)) FROM unnest($2::text[]) AS p")
        let again = PreparedQuery.Text(sql: "SELECT count(pg_notify($1, p)) FROM unnest($2::text[]) AS p")
        let other = PreparedQuery.Text(sql: "INSERT INTO other_table (payload) VALUES ($1)")
        #expect(first.name == again.name)
        #expect(first.name != other.name)
        #expect(first.name.hasPrefix("socketio_") && first.name.utf8.count <= 63)
    }
}
