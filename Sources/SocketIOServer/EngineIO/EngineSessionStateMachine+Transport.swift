extension EngineSessionStateMachine {
    // MARK: - Sending

    enum SendAction {
        /// Held in the polling buffer until the next GET.
        case queued
        /// Answer the held GET with these frames.
        case respond(Waiter, [EngineFrame])
        /// Write these frames to the WebSocket.
        case write(Socket, [EngineFrame])
        /// The client does not drain its queue: the session is closed.
        case close(CloseEffects)
        /// The session is closed; nothing was sent.
        case dropped
    }

    /// The server has packets for the client.
    mutating func send(_ frames: [EngineFrame]) -> SendAction {
        switch transport {
        case .polling, .upgrading:
            // Until the client sends `upgrade`, packets still travel over polling.
            let queued = inPollingBuffer { buffer -> SendAction? in
                guard buffer.append(frames) else { return nil }
                guard let waiter = buffer.takeWaiter() else { return .queued }
                return .respond(waiter, buffer.takeResponse())
            }
            guard let action = queued ?? nil else { return overflow() }
            return action
        case .webSocket(let socket):
            return .write(socket, frames)
        case .closing, .closed:
            return .dropped
        }
    }

    /// Runs `body` on the polling buffer of a `polling` or `upgrading` session, in place: the
    /// buffer is moved out of ``transport`` before it changes, so its queue has one owner and
    /// is not copied. (Bound with `case .polling(var buffer)` and written back after, it was
    /// copied whole on every change: each emit to a client that holds no GET cost as much as
    /// everything queued before it, quadratic up to the byte limit.) `nil` on other transports.
    @discardableResult
    private mutating func inPollingBuffer<T>(_ body: (inout PollingBuffer<Waiter>) -> T) -> T? {
        switch transport {
        case .polling(var buffer):
            transport = .closed
            defer { transport = .polling(buffer) }
            return body(&buffer)
        case .upgrading(var buffer, let probe, let probed):
            transport = .closed
            defer { transport = .upgrading(buffer, probe: probe, probed: probed) }
            return body(&buffer)
        case .webSocket, .closing, .closed:
            return nil
        }
    }

    private mutating func overflow() -> SendAction {
        guard let effects = close(.transportError("polling buffer full: the client does not poll")) else { return .dropped }
        return .close(effects)
    }

    // MARK: - Polling requests

    enum PollAction {
        /// Answer this GET now with these frames.
        case respond([EngineFrame])
        /// Hold the GET (the `held`-th) until there are frames.
        case wait(held: Int)
        /// Answer with these frames (ending with `close`); the session is now gone.
        case respondAndFinish([EngineFrame])
        /// A second GET while one is held: answer this one with 400; the session closes.
        case duplicate(CloseEffects)
        /// The session no longer takes polling requests (upgraded or closed): answer 400.
        case reject
    }

    /// A GET arrived.
    mutating func poll(_ waiter: Waiter) -> PollAction {
        switch transport {
        case .polling, .upgrading:
            // After the probe the client is pausing polling: release it at once so it can
            // send `upgrade` (the JS server writes a noop to a waiting GET every 100 ms).
            let probed = if case .upgrading(_, _, probed: true) = transport { true } else { false }
            let answered = inPollingBuffer { buffer -> PollAction? in
                guard buffer.waiter == nil else { return nil }
                return Self.answer(waiter, from: &buffer, holding: !probed)
            }
            guard let action = answered ?? nil else { return duplicatePoll() }
            return action
        case .closing(var buffer):
            // At most a response at a time; the last one, ending with `close`, ends the session.
            let frames = buffer.takeResponse()
            guard buffer.isEmpty else {
                transport = .closing(buffer)
                return .respond(frames)
            }
            transport = .closed
            return .respondAndFinish(frames)
        case .webSocket, .closed:
            return .reject
        }
    }

    /// A GET on a buffer that holds none: the buffered frames when there are any, else the GET
    /// is held (or, when not `holding`, answered at once with a noop).
    private static func answer(_ waiter: Waiter, from buffer: inout PollingBuffer<Waiter>, holding: Bool) -> PollAction {
        if !buffer.isEmpty { return .respond(buffer.takeResponse()) }
        guard holding else { return .respond([.noop]) }
        _ = buffer.hold(waiter)
        return .wait(held: buffer.held)
    }

    /// The connection of the `held`-th GET closed. Still held (nothing was written to it), the
    /// session closes, as socket.io's server does (`poll connection closed prematurely`): what
    /// it would answer later would be lost. Answered already, nothing happens.
    mutating func pollConnectionClosed(held: Int) -> CloseEffects? {
        switch transport {
        case .polling(let buffer), .upgrading(let buffer, _, _):
            guard buffer.waiter != nil, buffer.held == held else { return nil }
            return close(.transportError("poll connection closed prematurely"))
        case .webSocket, .closing, .closed:
            return nil
        }
    }

    private mutating func duplicatePoll() -> PollAction {
        guard let effects = close(.transportError("overlapping GET requests")) else { return .reject }
        return .duplicate(effects)
    }

    enum PostAction {
        /// Read the body and handle its packets, then call ``endPost()``.
        case proceed
        /// A second POST while one is read: answer 400; the session closes.
        case duplicate(CloseEffects)
        /// The session no longer takes polling requests: answer 400.
        case reject
    }

    /// A POST arrived.
    mutating func beginPost() -> PostAction {
        switch inPollingBuffer({ $0.beginPost() }) {
        case true?: .proceed
        case false?: duplicatePost()
        case nil: .reject
        }
    }

    private mutating func duplicatePost() -> PostAction {
        guard let effects = close(.transportError("overlapping POST requests")) else { return .reject }
        return .duplicate(effects)
    }

    /// The POST's body was handled.
    mutating func endPost() {
        inPollingBuffer { $0.endPost() }
    }

    // MARK: - Upgrade

    /// A WebSocket with this session's sid opened: it may probe and take over.
    /// Returns the upgrade timer to arm, or `nil` when the session cannot upgrade (close it).
    mutating func upgradeRequested(by socket: Socket) -> TimerArm? {
        guard case .polling(let buffer) = transport else { return nil }
        transport = .upgrading(buffer, probe: socket, probed: false)
        return arm(.upgrade, after: timing.upgradeTimeout)
    }

    enum ProbeAction {
        /// Write `3probe` to the probing socket and answer the held GET (if any) with a noop.
        case answer(Socket, release: Waiter?)
        /// Not a probe of this session: close that socket.
        case refuse
    }

    /// `2probe` arrived on `socket`.
    mutating func probed(by socket: Socket) -> ProbeAction {
        guard case .upgrading(var buffer, let probe, _) = transport, probe === socket else { return .refuse }
        let waiter = buffer.takeWaiter()
        transport = .upgrading(buffer, probe: probe, probed: true)
        return .answer(socket, release: waiter)
    }

    enum UpgradeAction {
        /// `socket` is now the transport: write it the frames polling still held, and answer
        /// the held GET (if any) with a noop.
        case upgraded(Socket, flush: [EngineFrame], release: Waiter?)
        case refuse
    }

    /// `upgrade` arrived on `socket`.
    mutating func upgraded(by socket: Socket) -> UpgradeAction {
        guard case .upgrading(var buffer, let probe, _) = transport, probe === socket else { return .refuse }
        transport = .webSocket(socket)  // first: the buffer is then the queue's one owner
        let waiter = buffer.takeWaiter()
        let pending = buffer.takeAll()
        carrier = .websocket
        _ = arm(.upgrade, after: .zero)  // invalidates the pending upgrade timeout
        return .upgraded(socket, flush: pending, release: waiter)
    }

    /// Something other than `2probe`/`upgrade` arrived on a probing socket: abandon the upgrade.
    /// Returns whether `socket` was the probe (close it either way).
    mutating func probeFailed(_ socket: Socket) -> Bool {
        guard case .upgrading(let buffer, let probe, _) = transport, probe === socket else { return false }
        transport = .polling(buffer)
        _ = arm(.upgrade, after: .zero)
        return true
    }
}

extension EngineSessionStateMachine {
    /// The transport and what it holds, one line (for diagnostics; never parsed).
    var diagnostics: String {
        func describe(_ buffer: PollingBuffer<Waiter>) -> String {
            "\(buffer.frames.count) frames buffered, GET \(buffer.waiter == nil ? "not held" : "held"), "
                + "POST \(buffer.posting ? "being read" : "idle")"
        }
        return switch transport {
        case .polling(let buffer): "polling, " + describe(buffer)
        case .upgrading(let buffer, _, let probed): "upgrading (\(probed ? "probed" : "not probed")), " + describe(buffer)
        case .webSocket: "WebSocket"
        case .closing(let buffer): "closing, " + describe(buffer)
        case .closed: "closed"
        }
    }
}
