extension MessageCenter {
    /// Every message matching any of `conditions` (every message when empty), as an async
    /// sequence. The subscription ends when the task iterating it is cancelled, or when the
    /// stream and its iterators are released (leaving a `for await` loop with `break` while
    /// still holding the stream keeps it subscribed); the sequence ends when the center goes away.
    ///
    /// A stream never intercepts or marks messages processed; it sees each message as the
    /// subscribers before it left it. Messages wait in the stream's buffer until consumed
    /// (`bufferingPolicy`, unbounded by default: a consumer that stops reading but keeps the
    /// stream accumulates them).
    ///
    /// ```swift
    /// for await message in center.messages(matching: [.value(at: "msg_body.extra.order_no", equals: "TAINIUBILE1234")]) {
    ///     print(message.body["title"] ?? "")
    /// }
    /// ```
    public func messages(
        matching conditions: [MessageCondition] = [],
        bufferingPolicy: AsyncStream<Message>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<Message> {
        let (stream, continuation) = AsyncStream<Message>.makeStream(bufferingPolicy: bufferingPolicy)
        let number = withState { state in
            let number = state.index.add(.stream(continuation), condition: conditions.first)
            for condition in conditions.dropFirst() { state.index.subscribe(number, to: condition) }
            return number
        }
        continuation.onTermination = { [weak self] _ in self?.remove(number: number) }
        return stream
    }
}
