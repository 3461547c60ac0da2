import DequeModule

/// The sends that wait for room in a failover channel's window
/// (``FailoverDriver/send(_:_:waitingUpTo:)``), first come, first served.
///
/// A send that found the window full waits with a token. When acknowledgements free room, the
/// oldest tokens are admitted: each gets one slot of the window, held for it until it numbers
/// its message (or gives up), so a send woken by an acknowledgement never finds its room taken.
/// While anyone waits or holds a slot, nobody else takes that room: a send that does not wait
/// finds the window full, and a send that does waits behind the others. Pure bookkeeping:
/// ``FailoverLedger`` keeps one and passes in how much of the window is taken.
struct FailoverRoom: Sendable {
    /// Tokens waiting for a slot, oldest first.
    private(set) var waiting: Deque<Int> = []
    /// Tokens admitted: each holds a slot until its send numbers its message or gives up.
    private(set) var holding: Set<Int> = []
    private var lastToken = 0

    /// A token for a send about to wait.
    mutating func token() -> Int {
        lastToken += 1
        return lastToken
    }

    /// Whether a send may be numbered now, with `unacknowledged` of `window` taken: one holding
    /// a slot (`token`) may; any other only when nobody waits and a slot is free.
    func admits(_ token: Int?, unacknowledged: Int, window: Int) -> Bool {
        if let token, holding.contains(token) { return true }
        return waiting.isEmpty && unacknowledged + holding.count < window
    }

    /// `token`'s send was numbered: its slot is a message now.
    mutating func used(_ token: Int) {
        holding.remove(token)
    }

    /// `token` waits its turn: `true` when it holds a slot at once (room was made meanwhile).
    mutating func wait(_ token: Int, unacknowledged: Int, window: Int) -> Bool {
        waiting.append(token)
        return admit(unacknowledged: unacknowledged, window: window).contains(token)
    }

    /// Room may have been made (`unacknowledged` of `window` taken now): the oldest waiting
    /// tokens that fit, in order, each holding a slot now.
    mutating func admit(unacknowledged: Int, window: Int) -> [Int] {
        var admitted: [Int] = []
        while let first = waiting.first, unacknowledged + holding.count < window {
            waiting.removeFirst()
            holding.insert(first)
            admitted.append(first)
        }
        return admitted
    }

    /// `token`'s send gave up (its bound passed, it was cancelled, the channel closed): it
    /// leaves the line, or the slot it held passes on — to the tokens returned.
    mutating func ended(_ token: Int, unacknowledged: Int, window: Int) -> [Int] {
        if let index = waiting.firstIndex(of: token) {
            waiting.remove(at: index)
            return []
        }
        guard holding.remove(token) != nil else { return [] }
        return admit(unacknowledged: unacknowledged, window: window)
    }
}
