import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import SwitchboardCore

extension FailoverDriver {
    // MARK: - Opening and switching

    /// Opens `transport` and resumes the channel on it, trying again (and switching where the
    /// policy says) up to `attempts` times.
    func connectWithRetries(_ first: FailoverTransport, attempts: Int) async throws {
        var target = first
        var delay: Duration = .milliseconds(50)
        var lastError: any Error = ConnectionError.connectFailed("no attempt made")
        for attempt in 1...max(attempts, 1) {
            try Task.checkCancellation()
            guard !state.withLockedValue({ $0.closed }) else { throw CancellationError() }
            do {
                try await connect(target)
                return
            } catch let gone as ChannelGone {
                // The server no longer holds the channel: a new one, right away (not a failure).
                startNewChannel(because: gone.message)
                do {
                    try await connect(target)
                    return
                } catch {
                    lastError = error
                }
            } catch {
                lastError = error
                logger.debug("channel transport failed", metadata: ["switchboard.transport": "\(target)", "switchboard.error": "\(error)"])
                let now = timeline.now()
                let decision = state.withLockedValue { $0.policy.observe(.connectFailed(target), current: target, now: now) }
                if case .switchTo(let next, let reason) = decision {
                    publish(.transportChanged(from: target, to: next, reason: reason))
                    target = next
                } else if attempt % 2 == 0 {
                    // The policy holds on; after two failures in a row try the other transport
                    // anyway (where the policy allows it).
                    let other: FailoverTransport = target == .webSocket ? .socketIO : .webSocket
                    if state.withLockedValue({ $0.policy.allows(other) }) { target = other }
                }
                if attempt < attempts {
                    try await timeline.sleep(delay)
                    delay = min(delay * 2, .seconds(2))
                }
            }
        }
        throw lastError
    }

    /// Opens one link on `transport` and resumes the channel on it.
    private func connect(_ transport: FailoverTransport) async throws {
        let generation = state.withLockedValue { state in
            state.generation += 1
            return state.generation
        }
        let report: @Sendable (FailoverLinkEvent) -> Void = { [weak self] event in self?.handle(event, from: generation) }
        let link: any FailoverLink
        switch transport {
        case .webSocket:
            var components = URLComponents(url: options.webSocketURL, resolvingAgainstBaseURL: false)
            let items = components?.queryItems ?? []
            components?.queryItems = items + [URLQueryItem(name: "channel", value: self.channelID)]
            let url = components?.url ?? options.webSocketURL
            link = try await WebSocketLink.open(url, connectTimeout: options.connectTimeout, report: report)
        case .socketIO:
            link = try await SocketIOLink.open(
                options.socketIOURL, namespace: options.namespace, connectTimeout: options.connectTimeout, report: report
            )
        }
        do {
            let peerReceived: UInt64
            do {
                peerReceived = try await resume(on: link, generation: generation)
            } catch let gone as ChannelGone {
                // The server no longer holds the channel and keeps the transport open for a new one.
                startNewChannel(because: gone.message)
                peerReceived = try await resume(on: link, generation: generation)
            }
            let previous = state.withLockedValue { state -> FailoverTransport? in
                defer { state.transport = transport }
                return state.transport
            }
            let now = timeline.now()
            let resentCount = try state.withLockedValue { state -> Int in
                let resend = try state.sender.resume(peerReceived: peerReceived)
                state.link = link
                for (seq, message) in resend {
                    state.sentAt[seq] = now
                    link.send(message.numbered(seq))
                }
                _ = state.policy.observe(.connected(transport), current: transport, now: now)
                return resend.count
            }
            logger.debug("channel resumed", metadata: ["switchboard.transport": "\(transport)", "switchboard.resent": "\(resentCount)"])
            if previous != transport {
                publish(.transportChanged(from: previous, to: transport, reason: previous == nil ? "opened" : "switched"))
            }
        } catch {
            link.close()
            throw error
        }
    }

    /// Sends `resume` on a new link and waits for `resumed`; returns what the server delivered.
    private func resume(on link: any FailoverLink, generation: Int) async throws -> UInt64 {
        let timeout = options.connectTimeout
        let timer = Task { [weak self] in
            do {
                try await self?.timeline.sleep(timeout)
            } catch {
                return  // answered in time
            }
            self?.failResume(generation, ConnectionError.connectFailed("no resumed within \(timeout)"))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let point: (String, UInt64)? = state.withLockedValue { state in
                guard state.generation == generation, !state.closed else { return nil }
                state.resumeWaiter = (generation, continuation)
                return (state.channelID, state.receiver.resumePoint())
            }
            guard let (channel, received) = point else {
                continuation.resume(throwing: ConnectionError.connectFailed("closed while opening"))
                return
            }
            link.send(.resume(channel: channel, received: received))
        }
    }

    private func failResume(_ generation: Int, _ error: any Error) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<UInt64, any Error>? in
            guard let waiter = state.resumeWaiter, waiter.generation == generation else { return nil }
            state.resumeWaiter = nil
            return waiter.continuation
        }
        waiter?.resume(throwing: error)
    }

    /// The current link dropped, or the policy wants the other transport: reconnect, in the
    /// background, on the transport the policy picks.
    func relink(to target: FailoverTransport, closing link: (any FailoverLink)?) {
        let task = Task { [weak self] in
            link?.close()
            guard let self else { return }
            do {
                try await self.connectWithRetries(target, attempts: self.options.maxAttempts)
            } catch is CancellationError {
                return
            } catch {
                let onEvent = self.state.withLockedValue { state -> (@Sendable (DriverEvent) -> Void)? in
                    defer { state.onEvent = nil }
                    return state.closed ? nil : state.onEvent
                }
                self.publish(.gaveUp(reason: "\(error)"))
                onEvent?(.closed(reason: "neither transport answered: \(error)"))
            }
        }
        let previous = state.withLockedValue { state in
            defer { state.supervisor = task }
            return state.supervisor
        }
        previous?.cancel()
    }

    func startTicker() {
        let interval = options.tickInterval
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                try? await self.timeline.sleep(interval)
                self.tick()
            }
        }
        let previous = state.withLockedValue { state in
            defer { state.ticker = ticker }
            return state.ticker
        }
        previous?.cancel()
    }

    private func tick() {
        let now = timeline.now()
        // A transport that stalls — open, no bytes either way, no close — shows as a message
        // left unacknowledged (the peer acknowledges within its ack delay): resume elsewhere.
        let timeout = options.ackTimeout
        let stalled: Int? = state.withLockedValue { state in
            guard !state.closed, state.link != nil, let oldest = state.sender.unacknowledged.first?.seq,
                  let sent = state.sentAt[oldest], now - sent > timeout else { return nil }
            return state.generation
        }
        if let stalled {
            linkBroke(stalled, reason: "no acknowledgement within \(timeout)", stalled: true)
            return
        }
        let move: (FailoverTransport, FailoverTransport, String, (any FailoverLink)?)? = state.withLockedValue { state in
            guard !state.closed, let current = state.transport, state.link != nil else { return nil }
            guard case .switchTo(let next, let reason) = state.policy.tick(current: current, now: now), next != current else { return nil }
            // The old link's reports are stale from here on.
            state.generation += 1
            defer { state.link = nil }
            return (current, next, reason, state.link)
        }
        guard let (from, to, reason, link) = move else { return }
        logger.info("channel switching transport", metadata: ["switchboard.to": "\(to)", "switchboard.reason": "\(reason)"])
        publish(.transportChanged(from: from, to: to, reason: reason))
        relink(to: to, closing: link)
    }

    /// Tells the policy about network path changes (not the first report: that is the start).
    func watchNetwork() {
        guard let monitor = options.networkMonitor else { return }
        let watch = Task { [weak self] in
            var first = true
            for await path in monitor.paths() {
                defer { first = false }
                guard !first, let self else { continue }
                let now = self.timeline.now()
                let decision = self.state.withLockedValue { state -> FailoverDecision in
                    guard let current = state.transport else { return .stay }
                    return state.policy.observe(.pathChanged(path), current: current, now: now)
                }
                if case .switchTo(let target, let reason) = decision { self.requestSwitch(to: target, reason: reason) }
            }
        }
        let previous = state.withLockedValue { state in
            defer { state.networkWatch = watch }
            return state.networkWatch
        }
        previous?.cancel()
    }

    /// The server refused the resume: it no longer holds the channel (`unknown or expired
    /// channel`). A new channel starts; what the old one had not had acknowledged is sent again
    /// on it (at least once: the server may have handled some before it lost the channel), and
    /// ``recovered`` says `false`, so the app knows to resynchronise.
    func startNewChannel(because reason: String) {
        let id = state.withLockedValue { state -> String in
            let pending = state.sender.unacknowledged.map(\.message)
            state.channelID = UUID().uuidString
            state.opened = false
            state.sender = ReliableSender(window: options.window)
            state.receiver = ReliableReceiver(ackEvery: options.ackEvery)
            state.sentAt = [:]
            for message in pending { _ = try? state.sender.send(message) }
            return state.channelID
        }
        logger.info("starting a new channel", metadata: ["switchboard.reason": "\(reason)", "switchboard.channel": "\(id)"])
    }

    func publish(_ event: FailoverEvent) {
        state.withLockedValue { $0.observers.yield(event) }
    }
}
