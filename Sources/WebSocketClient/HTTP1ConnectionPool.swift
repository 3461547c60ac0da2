import NIOConcurrencyHelpers
package import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
package import SwitchboardCore

/// HTTP/1.1 requests to one server over kept-alive connections, on one event loop: what the
/// engine's long-polling transport sends its GETs and POSTs through (one GET held by the
/// server and one POST at a time, so two connections at most).
///
/// A request takes an idle connection or opens one (TCP, TLS — the same ``TransportStack`` as the
/// WebSocket client — and, through an HTTP proxy, a `CONNECT` tunnel for `https` or absolute
/// targets for `http`); a kept-alive connection goes back to the idle list after its response.
/// A request that finds its reused connection closed before it was written is sent again, once,
/// on a new one; one whose reused connection closes before a byte of the answer only when it is
/// ``HTTP1Request/repeatable`` (the server may have read it, and answered it, before the cut).
/// So that a request that is not finds few closed connections, one whose server announced how
/// long it keeps idle connections (`Keep-Alive: timeout=5`, as Node's servers do) is not reused
/// in the last second of that time: the server's close and the request would cross. Everything runs on the pool's event loop; the
/// caller is resumed once per response. ``shutdown()`` closes every connection, in flight or idle.
package final class HTTP1ConnectionPool: Sendable {
    package struct Configuration: Sendable {
        /// The server.
        package var address: ServerAddress
        package var trustRoots: TrustRoots
        /// The bootstrap and TLS of a connection, its connect timeout included.
        package var stack: TransportStack
        /// An HTTP proxy (host and port) every connection goes through.
        package var proxy: (host: String, port: Int)?
        /// The loop every connection of the pool runs on.
        package var eventLoop: any EventLoop
        /// The process's file descriptors (see ``DescriptorBudget``).
        package var descriptors: DescriptorBudget = .shared
        /// Cookies sent with every request and kept from every response (none when `nil`).
        package var cookies: CookieJar?

        package init(address: ServerAddress, trustRoots: TrustRoots, stack: TransportStack,
                     proxy: (host: String, port: Int)? = nil, eventLoop: any EventLoop, cookies: CookieJar? = nil) {
            self.address = address
            self.trustRoots = trustRoots
            self.stack = stack
            self.proxy = proxy
            self.eventLoop = eventLoop
            self.cookies = cookies
        }
    }

    private struct Idle {
        let connection: Connection
        /// Past this, the server may be closing it (its `Keep-Alive: timeout` less a second).
        let reusableUntil: NIODeadline?
    }

    private struct State {
        var idle: [Idle] = []
        var open: [ObjectIdentifier: Connection] = [:]
        /// Connected, with the tunnel or TLS still being set up (``shutdown()`` closes them too).
        var settingUp: [ObjectIdentifier: any Channel] = [:]
        var shutDown = false
    }

    private let configuration: Configuration
    private let state = NIOLockedValueBox(State())

    package init(configuration: Configuration) {
        self.configuration = configuration
    }

    deinit {
        for connection in state.withLockedValue({ Array($0.open.values) }) { connection.close() }
    }

    /// Performs `request` and returns its whole response (the body at most `maxBodySize` bytes),
    /// failing with ``HTTP1ClientError/timedOut`` when it takes longer than `timeout` (a new
    /// connection's proxy tunnel and TLS included). A cancelled task's request is abandoned (its
    /// connection closed, also while it is being set up) with `CancellationError`.
    package func execute(_ request: HTTP1Request, maxBodySize: Int, timeout: TimeAmount?) async throws -> HTTP1Response {
        let cookies = configuration.cookies
        var request = request
        if let cookie = cookies?.header { request.headers.append(("Cookie", cookie)) }
        var retried = false
        let deadline = timeout.map { NIODeadline.now() + $0 }
        while true {
            try Task.checkCancellation()
            let (connection, reused) = try await checkOut(until: deadline)
            do {
                let left = deadline.map { $0 - NIODeadline.now() }
                let response = try await withTaskCancellationHandler {
                    try await connection.perform(request, maxBodySize: maxBodySize, timeout: left).get()
                } onCancel: {
                    connection.close()
                }
                if response.keepAlive { checkIn(connection, reusableFor: Self.reuseWindow(response.headers)) }
                cookies?.store(from: response.headers)
                return response
            } catch let error as HTTP1ClientError where reused && !retried && !Task.isCancelled && Self.mayRetry(request, after: error) {
                retried = true
            } catch {
                connection.close()
                if Task.isCancelled { throw CancellationError() }
                if state.withLockedValue({ $0.shutDown }) { throw HTTP1ClientError.shutDown }
                // The setup's deadline may have closed the connection as it was handed over.
                if let deadline, deadline <= NIODeadline.now() { throw HTTP1ClientError.timedOut }
                throw error
            }
        }
    }

    /// Whether `request`, failed with `error` on a reused connection, is sent again on a new one.
    private static func mayRetry(_ request: HTTP1Request, after error: HTTP1ClientError) -> Bool {
        switch error {
        case .notSent: true
        case .connectionClosed(beforeResponse: true): request.repeatable
        default: false
        }
    }

    /// Closes every connection; requests in flight fail, later ones fail with ``HTTP1ClientError/shutDown``.
    package func shutdown() {
        let (connections, settingUp) = state.withLockedValue { state in
            state.shutDown = true
            state.idle = []
            return (Array(state.open.values), Array(state.settingUp.values))
        }
        for connection in connections { connection.close() }
        for channel in settingUp { channel.close(promise: nil) }
    }

    /// The number of open connections (for tests and diagnostics).
    package var openConnections: Int {
        state.withLockedValue { $0.open.count }
    }

    // MARK: - Connections

    private func checkOut(until deadline: NIODeadline?) async throws -> (Connection, reused: Bool) {
        let now = NIODeadline.now()
        let (idle, expired) = try state.withLockedValue { state -> (Connection?, [Connection]) in
            if state.shutDown { throw HTTP1ClientError.shutDown }
            var expired: [Connection] = []
            while let last = state.idle.popLast() {
                if let until = last.reusableUntil, until <= now {
                    expired.append(last.connection)
                    continue
                }
                return (last.connection, expired)
            }
            return (nil, expired)
        }
        for connection in expired { connection.close() }
        if let idle { return (idle, true) }
        let connection = try await connect(until: deadline)
        let accepted = state.withLockedValue { state in
            if state.shutDown { return false }
            state.open[ObjectIdentifier(connection)] = connection
            return true
        }
        guard accepted else {
            connection.close()
            throw HTTP1ClientError.shutDown
        }
        // Closed by either side: it leaves the pool (also when it is idle).
        connection.channel.closeFuture.whenComplete { [weak self] _ in self?.forget(connection) }
        return (connection, false)
    }

    private func checkIn(_ connection: Connection, reusableFor window: TimeAmount?) {
        let until = window.map { NIODeadline.now() + $0 }
        let keep = state.withLockedValue { state in
            guard !state.shutDown, state.open[ObjectIdentifier(connection)] != nil else { return false }
            state.idle.append(Idle(connection: connection, reusableUntil: until))
            return true
        }
        if !keep { connection.close() }
    }

    private func forget(_ connection: Connection) {
        state.withLockedValue { state in
            state.open[ObjectIdentifier(connection)] = nil
            state.idle.removeAll { $0.connection === connection }
        }
    }

    /// How long a connection may be reused after a response with these headers: the server's
    /// `Keep-Alive: timeout=N` less one second (its clock started first, and its close takes
    /// time to arrive), at most a day; `nil` when it announced none or nothing readable.
    static func reuseWindow(_ headers: HTTPHeaders) -> TimeAmount? {
        for value in headers["Keep-Alive"] {
            for parameter in value.split(separator: ",") {
                let pair = parameter.filter { !$0.isWhitespace }.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].lowercased() == "timeout", let seconds = Int64(pair[1]) else { continue }
                // Clamped before the subtraction: a server's number must neither overflow it
                // (`Int64.min`) nor the nanoseconds of a TimeAmount.
                return .seconds(min(max(seconds, 1), 86_401) - 1)
            }
        }
        return nil
    }

    /// Opens one connection: TCP (to the proxy when there is one), the tunnel and TLS as needed,
    /// then the HTTP/1.1 codec and the exchange handler; the setup ends by `deadline`, by the
    /// caller's cancellation, or by ``shutdown()`` (a proxy that never answers `CONNECT` held it
    /// for good, and `Manager.close()` with it).
    private func connect(until deadline: NIODeadline?) async throws -> Connection {
        let configuration = self.configuration
        let address = configuration.address
        let hop = configuration.proxy.map { ServerAddress(secure: false, host: $0.host, port: $0.port) } ?? address
        let bootstrap: NIOClientTCPBootstrap
        do {
            bootstrap = try configuration.stack.bootstrap(for: hop, trustRoots: configuration.trustRoots, on: configuration.eventLoop)
        } catch {
            throw HTTP1ClientError.tlsSetup("\(error)")
        }
        let descriptors = configuration.descriptors
        if case .refused(let open, let limit, _) = descriptors.acquire() {
            throw HTTP1ClientError.outOfDescriptors(open: open, limit: limit)
        }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: hop.host, port: hop.port).get()
        } catch {
            descriptors.release()
            throw HTTP1ClientError.cannotConnect(host: hop.host, port: hop.port, "\(error)")
        }
        channel.closeFuture.whenComplete { _ in descriptors.release() }
        let id = ObjectIdentifier(channel)
        let admitted = state.withLockedValue { state in
            guard !state.shutDown else { return false }
            state.settingUp[id] = channel
            return true
        }
        let timer = deadline.map { deadline in
            channel.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
        }
        defer {
            timer?.cancel()
            state.withLockedValue { _ = $0.settingUp.removeValue(forKey: id) }
        }
        do {
            guard admitted else { throw HTTP1ClientError.shutDown }
            try await withTaskCancellationHandler {
                try await configure(channel, throughProxy: configuration.proxy != nil).get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } catch {
            channel.close(promise: nil)
            if Task.isCancelled { throw CancellationError() }
            if let deadline, deadline <= NIODeadline.now() { throw HTTP1ClientError.timedOut }
            if state.withLockedValue({ $0.shutDown }) { throw HTTP1ClientError.shutDown }
            throw error
        }
        return Connection(channel: channel)
    }

    /// Sets up the pipeline of a connected channel (on its loop).
    private func configure(_ channel: any Channel, throughProxy: Bool) -> EventLoopFuture<Void> {
        let address = configuration.address
        let trustRoots = configuration.trustRoots
        let eventLoop = channel.eventLoop
        let tunnelled: EventLoopFuture<Void>
        if throughProxy && address.secure {
            let established = eventLoop.makePromise(of: Void.self)
            let authority = (address.host.contains(":") ? "[\(address.host)]" : address.host) + ":\(address.port)"
            tunnelled = eventLoop.submit {
                let tunnel = ProxyTunnelHandler(authority: authority, established: established)
                try channel.pipeline.syncOperations.addHandler(tunnel, name: Self.tunnelHandlerName)
            }.flatMap { established.futureResult }.flatMap {
                channel.pipeline.removeHandler(name: Self.tunnelHandlerName)
            }.flatMapThrowing {
                let context = try NIOSSLContext(configuration: trustRoots.tlsConfiguration())
                let tls = try NIOSSLClientHandler(context: context, serverHostname: address.serverHostname)
                try channel.pipeline.syncOperations.addHandler(tls)
            }
        } else {
            tunnelled = eventLoop.makeSucceededVoidFuture()
        }
        // Through a proxy, a plain `http` request names the server in its target.
        let absolutePrefix = throughProxy && !address.secure ? "http://\(address.hostHeader)" : nil
        return tunnelled.flatMapThrowing {
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
            try channel.pipeline.syncOperations.addHandler(
                HTTP1ExchangeHandler(host: address.hostHeader, absolutePrefix: absolutePrefix))
        }
    }

    private static let tunnelHandlerName = "proxy-tunnel"

    /// One connection and its exchange handler.
    final class Connection: Sendable {
        let channel: any Channel

        init(channel: any Channel) {
            self.channel = channel
        }

        func perform(_ request: HTTP1Request, maxBodySize: Int, timeout: TimeAmount?) -> EventLoopFuture<HTTP1Response> {
            let promise = channel.eventLoop.makePromise(of: HTTP1Response.self)
            let channel = self.channel
            let start: @Sendable () -> Void = {
                do {
                    let handler = try channel.pipeline.syncOperations.handler(type: HTTP1ExchangeHandler.self)
                    handler.start(request, maxBodySize: maxBodySize, timeout: timeout, promise: promise)
                } catch {
                    promise.fail(HTTP1ClientError.notSent)
                }
            }
            // The polling loops run on this loop: then the request is written without a hop.
            if channel.eventLoop.inEventLoop { start() } else { channel.eventLoop.execute(start) }
            return promise.futureResult
        }

        func close() {
            channel.close(promise: nil)
        }
    }
}
