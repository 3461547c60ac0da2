package import NIOConcurrencyHelpers

/// The continuations of the async streams that observe one thing (state changes, queue counts,
/// the events of one name). A plain value kept under its owner's lock, so an owner can yield
/// in the same critical section that changes what is observed (observers then see changes in
/// order).
///
/// Finishing a continuation runs its `onTermination`, which takes the owner's lock again:
/// ``takeAll()`` hands them out so the owner finishes them after unlocking. An owner dropped
/// without closing its set still ends its streams: the last reference to an ``Observer`` finishes
/// it (a dropped `AsyncStream.Continuation` alone would leave its consumer waiting forever).
package struct ObserverSet<Element: Sendable>: Sendable {
    /// One stream's continuation, finished when it is finished explicitly or forgotten.
    package final class Observer: Sendable {
        let continuation: AsyncStream<Element>.Continuation

        init(_ continuation: AsyncStream<Element>.Continuation) {
            self.continuation = continuation
        }

        deinit {
            continuation.finish()
        }

        /// Gives `element` to this stream alone.
        package func yield(_ element: Element) {
            continuation.yield(element)
        }

        /// Ends the stream (its consumer's loop finishes after what was yielded before).
        package func finish() {
            continuation.finish()
        }
    }

    private var continuations: [UInt64: Observer] = [:]
    private var nextID: UInt64 = 0
    /// Set by ``takeAll()``: the owner is gone, later streams end at once.
    package private(set) var isClosed = false

    package init() {}

    fileprivate init(closed: Bool) {
        isClosed = closed
    }

    /// Whether no stream observes now.
    package var isEmpty: Bool { continuations.isEmpty }

    /// Adds a stream's continuation; `nil` (and nothing added) once closed.
    package mutating func add(_ continuation: AsyncStream<Element>.Continuation) -> UInt64? {
        guard !isClosed else { return nil }
        nextID += 1
        continuations[nextID] = Observer(continuation)
        return nextID
    }

    /// Forgets a stream whose consumer stopped.
    package mutating func remove(_ id: UInt64) {
        continuations.removeValue(forKey: id)
    }

    /// Gives `element` to every stream.
    package func yield(_ element: Element) {
        for observer in continuations.values { observer.continuation.yield(element) }
    }

    /// Hands out every stream observing now, to be finished outside the lock; the set stays
    /// open (an owner that can be opened again after a close: its later streams follow it).
    package mutating func takeCurrent() -> [Observer] {
        defer { continuations = [:] }
        return Array(continuations.values)
    }

    /// Closes the set and hands out every stream, to be finished outside the lock.
    package mutating func takeAll() -> [Observer] {
        isClosed = true
        defer { continuations = [:] }
        return Array(continuations.values)
    }
}

/// A new stream registered in an observer set of `owner`'s lock-guarded state (`state` is the
/// box, `observers` the set in it): `initial` (read under the lock, before any later change can
/// be yielded) comes first; the stream ends at once when the set is closed, and leaves the set
/// when its consumer stops (the owner is held weakly meanwhile).
package func observerStream<Owner: AnyObject & Sendable, State: Sendable, Element: Sendable>(
    of owner: Owner,
    _ state: any KeyPath<Owner, NIOLockedValueBox<State>> & Sendable,
    _ observers: any WritableKeyPath<State, ObserverSet<Element>> & Sendable,
    initial: (State) -> Element? = { _ in nil }
) -> AsyncStream<Element> {
    let (stream, continuation) = AsyncStream<Element>.makeStream()
    let id = owner[keyPath: state].withLockedValue { value -> UInt64? in
        if let first = initial(value) { continuation.yield(first) }
        return value[keyPath: observers].add(continuation)
    }
    guard let id else {
        continuation.finish()
        return stream
    }
    // Not under the stream's termination: the owner yields to its observers under its own lock,
    // and a consumer cancelled at that moment would wait for that lock while the yield waits for
    // the stream's (a lock-order deadlock, seen in PlatformLayerExample). Removal can wait a
    // moment; a yield to a terminated continuation is dropped.
    //
    // A stream the owner finished (``ObserverSet/takeAll()``) is no longer in the set: nothing
    // to remove, and no task that would hold the owner for a moment after it closed.
    continuation.onTermination = { [weak owner] termination in
        guard case .cancelled = termination, owner != nil else { return }
        Task { [weak owner] in owner?[keyPath: state].withLockedValue { $0[keyPath: observers].remove(id) } }
    }
    return stream
}

/// Observer sets by key (the subscribers of each event name), closed together.
package struct KeyedObserverSets<Key: Hashable & Sendable, Element: Sendable>: Sendable {
    private var sets: [Key: ObserverSet<Element>] = [:]
    private var isClosed = false

    package init() {}

    /// The set for `key` (an empty one when nobody observes it; a closed one once closed).
    package subscript(key: Key) -> ObserverSet<Element> {
        get { sets[key] ?? (isClosed ? ObserverSet(closed: true) : ObserverSet()) }
        set { sets[key] = newValue.isEmpty ? nil : newValue }
    }

    /// Closes every set and hands out every stream, to be finished outside the lock.
    package mutating func takeAll() -> [ObserverSet<Element>.Observer] {
        isClosed = true
        defer { sets = [:] }
        return sets.values.flatMap { set in
            var set = set
            return set.takeAll()
        }
    }
}

extension AsyncStream where Element: Sendable {
    /// A stream of `source`'s elements passed through `transform` (`nil` drops one), ending when
    /// `source` ends; its consumer stopping cancels the relay.
    package static func relaying<Source: AsyncSequence & Sendable>(
        _ source: Source,
        _ transform: @escaping @Sendable (Source.Element) -> Element?
    ) -> AsyncStream<Element> where Source.Element: Sendable {
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let relay = Task {
            do {
                for try await element in source {
                    if let mapped = transform(element) { continuation.yield(mapped) }
                }
            } catch {}
            continuation.finish()
        }
        continuation.onTermination = { _ in relay.cancel() }
        return stream
    }
}
