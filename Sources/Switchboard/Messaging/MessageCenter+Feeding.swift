import Logging
public import SocketIOProtocol

extension MessageCenter {
    /// Dispatches every value `source` produces, one after another in order, until it ends or
    /// the returned feed is cancelled. Values that are not messages are rejected (counted and
    /// logged) and the feed goes on; a source that throws ends the feed with that error.
    ///
    /// The feed runs on its own task, which is where subscribers' handlers run; it keeps the
    /// center alive until it ends.
    ///
    /// ```swift
    /// let feed = center.feed(from: socket.events(named: "message").map { $0.items.first ?? .null })
    /// …
    /// feed.cancel()
    /// ```
    @discardableResult
    public func feed<Source: AsyncSequence & Sendable>(from source: Source) -> MessageFeed
    where Source.Element == JSONValue {
        MessageFeed(task: Task { [self] in
            do {
                for try await value in source {
                    if Task.isCancelled { break }
                    await dispatch(value)
                }
            } catch is CancellationError {
                return .cancelled
            } catch {
                logger.error("message feed ended: its source failed: \(error)")
                return .failed(error)
            }
            return Task.isCancelled ? .cancelled : .sourceEnded
        })
    }

    /// Dispatches every payload of `event` that `connection` receives (see ``feed(from:)``),
    /// including those after it reconnects, until the connection is released or the returned
    /// feed is cancelled.
    ///
    /// ```swift
    /// let feed = center.attach(to: connection, event: "message")
    /// ```
    @discardableResult
    public func attach(to connection: any Connection, event: String = "message") -> MessageFeed {
        feed(from: connection.events(named: event))
    }
}

/// A running feed of messages into a ``MessageCenter``: cancel it to stop, or await how it ended.
///
/// Releasing the handle does not stop the feed: it runs until its source ends or ``cancel()``.
public struct MessageFeed: Sendable {
    /// How a feed ended.
    public enum Completion: Sendable {
        /// The source finished (for a connection: it was released).
        case sourceEnded
        /// ``MessageFeed/cancel()`` stopped it.
        case cancelled
        /// The source threw this error.
        case failed(any Error)
    }

    private let task: Task<Completion, Never>

    init(task: Task<Completion, Never>) {
        self.task = task
    }

    /// Stops the feed: the message being dispatched, if any, finishes; no later value of the
    /// source is dispatched.
    public func cancel() {
        task.cancel()
    }

    /// Waits until the feed ends and says how.
    public var completion: Completion {
        get async { await task.value }
    }
}
