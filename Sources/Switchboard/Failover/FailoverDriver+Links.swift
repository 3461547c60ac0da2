import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import SwitchboardCore

extension FailoverDriver {
    // MARK: - Opening and switching

    /// Opens `transport` and resumes the channel on it, trying again (and switching where the
    /// policy says) up to `attempts` times. A reconnection (`reportsLoss`) that runs out of
    /// attempts tells the connection above the channel is lost.
    func connectWithRetries(_ first: FailoverTransport, attempts: Int, reportsLoss: Bool) async throws {
        var target = first
        var delay = RetryDelay(cap: .seconds(2))
        let attempts = max(attempts, 1)
        for attempt in 1...attempts {
            try Task.checkCancellation()
            var channelGone = false
            // The attempt's generation, once it started: a failure is judged against it.
            var generation = -1
            do {
                do {
                    try await connect(target, newChannel: nil, generation: &generation)
                } catch let gone as FailoverChannel.ChannelGone {
                    // The server no longer holds the channel: a new one, right away (not a failure).
                    channelGone = true
                    try await connect(target, newChannel: freshChannel(because: gone.message), generation: &generation)
                }
                return
            } catch {
                if !channelGone {
                    logger.debug("channel transport failed", metadata: ["switchboard.transport": "\(target)", "switchboard.error": "\(error)"])
                }
                let now = timeline.now()
                let action = state.withLockedValue { machine in
                    machine.connectFailed(
                        target, generation: generation, attempt: attempt, of: attempts, error: error, observed: !channelGone, reportsLoss: reportsLoss, now: now
                    )
                }
                action.publish?.run()
                if let (listener, reason) = action.reportLoss { listener?(.closed(reason: reason)) }
                guard !action.stop else { throw error }
                target = action.next
                if !channelGone {
                    try await timeline.sleep(delay.next())
                }
            }
        }
    }

    /// Opens one link on `transport` and resumes the channel on it; `started` is set to the
    /// attempt's generation as it begins.
    private func connect(
        _ transport: FailoverTransport, newChannel: FailoverChannel.NewChannel?, generation started: inout Int
    ) async throws {
        guard let (attempt, displaced) = state.withLockedValue({ $0.attemptStarting(newChannel: newChannel) }) else { throw CancellationError() }
        displaced?.resume(throwing: CancellationError())  // its reconnection was replaced by this one
        let generation = attempt.generation
        started = generation
        let report: @Sendable (FailoverLinkEvent) -> Void = { [weak self] event in self?.handle(event, from: generation) }
        let link: any FailoverLink
        switch transport {
        case .webSocket:
            var components = URLComponents(url: options.webSocketURL, resolvingAgainstBaseURL: false)
            let items = components?.queryItems ?? []
            components?.queryItems = items + [URLQueryItem(name: "channel", value: attempt.channelID)]
            let url = components?.url ?? options.webSocketURL
            link = try await WebSocketLink.open(url, connectTimeout: options.connectTimeout, report: report)
        case .socketIO:
            link = try await SocketIOLink.open(
                options.socketIOURL, namespace: options.namespace, connectTimeout: options.connectTimeout, report: report
            )
        }
        do {
            do {
                try await resume(on: link, transport, generation: generation, newChannel: nil)
            } catch let gone as FailoverChannel.ChannelGone {
                // The server no longer holds the channel and keeps the transport open for a new one.
                try await resume(on: link, transport, generation: generation, newChannel: freshChannel(because: gone.message))
            }
        } catch {
            link.close()
            throw error
        }
    }

    /// Sends `resume` on a new link and waits for `resumed` (whose report makes the link the
    /// channel's, and writes what the server missed).
    private func resume(
        on link: any FailoverLink, _ transport: FailoverTransport, generation: Int, newChannel: FailoverChannel.NewChannel?
    ) async throws {
        let (timeout, timeline) = (options.connectTimeout, timeline)
        let timer = Task { [weak self] in
            do {
                try await timeline.sleep(timeout)  // not holding the driver meanwhile
            } catch {
                return  // answered in time
            }
            self?.fire(.resumeDeadline(generation: generation, timeout: timeout))
        }
        defer { timer.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let start = state.withLockedValue { machine in
                machine.resumeStarting(generation: generation, link: link, transport: transport, waiter: continuation, newChannel: newChannel)
            }
            switch start {
            case .send(let envelope): link.send(envelope)
            case .refuse(let waiter): waiter.resume(throwing: ConnectionError.connectFailed("closed while opening"))
            }
        }
    }

    /// A new channel, for the server no longer holds this one (`unknown or expired channel`):
    /// what the old one had not had acknowledged is sent again on it, and ``recovered`` says
    /// `false`, so the app knows to resynchronise.
    private func freshChannel(because reason: String) -> FailoverChannel.NewChannel {
        let channel = FailoverChannel.NewChannel(id: UUID().uuidString, reason: reason)
        logger.info("starting a new channel", metadata: ["switchboard.reason": "\(reason)", "switchboard.channel": "\(channel.id)"])
        return channel
    }

    /// Reconnects, in the background, on `target` (closing `link` first); the reconnection
    /// before it stops.
    func relink(to target: FailoverTransport, closing link: (any FailoverLink)?) {
        let task = Task { [weak self] in
            link?.close()
            guard let self else { return }
            try? await self.connectWithRetries(target, attempts: self.options.maxAttempts, reportsLoss: true)
        }
        adopt(task, as: .supervisor)
    }

    /// The policy's interval, on a task that holds the driver while it ticks, not while it sleeps.
    func startTicker() {
        let (interval, timeline) = (options.tickInterval, timeline)
        adopt(Task { [weak self] in
            while !Task.isCancelled {
                try? await timeline.sleep(interval)
                guard let self else { return }
                self.fire(.tick)
            }
        }, as: .ticker)
    }

    /// Tells the policy about network path changes (not the first report: that is the start).
    func watchNetwork() {
        guard let monitor = options.networkMonitor else { return }
        adopt(Task { [weak self] in
            var first = true
            for await path in monitor.paths() {
                defer { first = false }
                guard !first, let self else { continue }
                self.run { machine, now in machine.pathChanged(path, now: now) }
            }
        }, as: .networkWatch)
    }

    /// Keeps `task` as the channel's task in `role`; the one it replaces stops.
    private func adopt(_ task: Task<Void, Never>, as role: FailoverChannel.Tasks.Role) {
        state.withLockedValue { $0.adopt(task, as: role) }?.cancel()
    }

    /// `timer` fired.
    func fire(_ timer: FailoverChannel.Timer) {
        run { machine, now in machine.timerFired(timer, now: now) }
    }
}
