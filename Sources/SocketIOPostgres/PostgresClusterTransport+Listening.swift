import Logging
import PostgresNIO

/// The listening connection: `LISTEN` per namespace, and a new connection after a loss.
extension PostgresClusterTransport {
    /// Listens on `namespace` on `connection`, replacing its receiver on an older connection;
    /// with `catchUp`, first delivers the journal rows of that last stretch of time, then tells
    /// the listener it caught up on the connection of `generation`.
    func listen(_ namespace: String, on connection: PostgresConnection, catchUp: Duration? = nil, generation: Int = 0) async throws(PostgresClusterTransportError) {
        var logger = logger
        logger[metadataKey: "socketio.nsp"] = "\(namespace)"
        let receiver = NamespaceReceiver(
            namespace: namespace,
            channel: format.channel(for: namespace),
            table: table,
            queries: queries,
            deliveries: deliveries,
            logger: logger
        )
        try await receiver.start(on: connection, catchUp: options.journal ? catchUp : nil) { [weak self] in await self?.caughtUp(namespace, generation: generation) }
        guard !listener.isClosed else {
            receiver.stop()
            throw .closed
        }
        receivers[namespace]?.stop()
        receivers[namespace] = receiver
    }

    private func caughtUp(_ namespace: String, generation: Int) {
        listener.caughtUp(namespace, generation: generation)
    }

    /// Reports the loss of `connection` once it closes, and closes it when it goes silent.
    func watch(_ connection: PostgresConnection, generation: Int) {
        Task {
            try? await connection.closeFuture.get()
            self.connectionLost(generation: generation)
        }
        watchdog?.cancel()
        watchdog = ListenerWatchdog.start(watching: connection, interval: options.keepAliveInterval, timeout: options.keepAliveTimeout, logger: logger)
    }

    private func connectionLost(generation: Int) {
        switch listener.connectionLost(generation: generation, at: .now) {
        case .none:
            return
        case .reconnect:
            logger.warning("lost the PostgreSQL listening connection; reconnecting")
            watchdog?.cancel()
            for receiver in receivers.values { receiver.stop() }
            receivers = [:]
            eventSink.yield(.lost)
            reconnection = Task { await self.reconnect() }
        }
    }

    /// How far before the loss the journal catch-up reaches: notifications in flight when the
    /// connection went (the numbering drops those that did arrive), and, for a connection that
    /// went silent, the keep-alive timeout before it was found so.
    var catchUpMargin: Duration { .seconds(5) + options.keepAliveTimeout }

    /// Connects again after a random delay, as long as needed, then listens on every namespace.
    private func reconnect() async {
        while listener.isReconnecting {
            let delay = ReconnectDelay.delay(in: options.reconnectDelay, draw: Double.random(in: 0 ... 1))
            do { try await Task.sleep(for: delay) } catch { return }
            guard listener.isReconnecting else { return }
            let connection: PostgresConnection
            do {
                connection = try await connector.connect()
            } catch {
                logger.warning("PostgreSQL reconnection failed; retrying", metadata: ["error": "\(error)"])
                eventSink.yield(.reconnectFailed)
                continue
            }
            switch listener.connected(connection) {
            case .close(let connection):
                try? await connection.close()
                return
            case .listen(let connection, let generation, let namespaces, let lostSince):
                watch(connection, generation: generation)
                // Since the earliest loss not caught up (and a margin for notifications in flight
                // then), read back from the journal; the adapter drops what it already had.
                let catchUp = lostSince.map { ContinuousClock.now - $0 + catchUpMargin }
                for namespace in namespaces {
                    do {
                        try await listen(namespace, on: connection, catchUp: catchUp, generation: generation)
                    } catch {
                        // Lost again meanwhile: the watcher starts the next reconnection.
                        logger.warning("LISTEN failed after reconnecting", metadata: ["error": "\(error)"])
                    }
                }
                logger.info("PostgreSQL listening connection restored", metadata: ["namespaces": "\(namespaces.count)"])
                eventSink.yield(.restored)
                return
            }
        }
    }
}
