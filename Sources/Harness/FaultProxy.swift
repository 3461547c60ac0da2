import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy on loopback that forwards bytes to a server and, on command, cuts every
/// connection, stalls the open ones (no bytes either way, sockets left open), delays every byte,
/// or refuses new connections — real transport failures for the client under test.
package final class FaultProxy: Sendable {
    package let port: Int
    private let server: any Channel
    private struct State {
        var connections: [ObjectIdentifier: any Channel] = [:]
        var links: [ObjectIdentifier: LinkControl] = [:]
        var refusing = false
        var delay: TimeAmount = .zero
    }
    private let state = NIOLockedValueBox(State())

    /// Starts forwarding `127.0.0.1:<port>` to `127.0.0.1:<upstreamPort>`.
    package static func start(upstreamPort: Int) async throws -> FaultProxy {
        let box = NIOLockedValueBox<FaultProxy?>(nil)
        let group = MultiThreadedEventLoopGroup.singleton
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelInitializer { inbound in
                guard let proxy = box.withLockedValue({ $0 }) else { return inbound.close() }
                return proxy.accept(inbound, upstreamPort: upstreamPort)
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let proxy = FaultProxy(server: server, port: server.localAddress?.port ?? 0)
        box.withLockedValue { $0 = proxy }
        return proxy
    }

    private init(server: any Channel, port: Int) {
        self.server = server
        self.port = port
    }

    package var url: String { "http://127.0.0.1:\(port)" }

    /// Closes every connection through the proxy (both sides, abruptly).
    package func cutAll() {
        _ = closeEveryConnection()
    }

    /// ``cutAll()``, returning once every cut connection is closed, so nothing a client sends
    /// from now on reaches the server through them.
    package func cutAllAndWait() async {
        for channel in closeEveryConnection() {
            await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in
                channel.closeFuture.whenComplete { _ in closed.resume() }
            }
        }
    }

    private func closeEveryConnection() -> [any Channel] {
        let channels = state.withLockedValue { Array($0.connections.values) }
        for channel in channels { channel.close(mode: .all, promise: nil) }
        return channels
    }

    /// Cuts every connection every `interval` until the returned task is cancelled; its value
    /// is the number of cuts. The interval is the fault's schedule (a flaky network), not a wait
    /// for anything: the test awaits its own results.
    package func cutRepeatedly(every interval: Duration) -> Task<Int, Never> {
        Task {
            var cuts = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                cutAll()
                cuts += 1
            }
            return cuts
        }
    }

    /// While on, new connections are closed as soon as they arrive.
    package func refuseNewConnections(_ refusing: Bool) {
        state.withLockedValue { $0.refusing = refusing }
    }

    /// Every connection open now stops carrying bytes, both ways, but stays open (a dead Wi-Fi,
    /// a NAT that forgot the flow). New connections are not affected.
    package func stallAll() {
        let links = state.withLockedValue { Array($0.links.values) }
        for link in links { link.stall() }
    }

    /// Every byte, on open and new connections, is forwarded `delay` later (order kept).
    package func delay(_ delay: Duration) {
        let amount = TimeAmount(delay)
        let links = state.withLockedValue { state in
            state.delay = amount
            return Array(state.links.values)
        }
        for link in links { link.setDelay(amount) }
    }

    package func stop() async {
        cutAll()
        try? await server.close()
    }

    private func accept(_ inbound: any Channel, upstreamPort: Int) -> EventLoopFuture<Void> {
        let (refusing, delay) = state.withLockedValue { ($0.refusing, $0.delay) }
        guard !refusing else { return inbound.close() }
        track(inbound)
        let link = LinkControl(delay: delay)
        let linkID = ObjectIdentifier(inbound)
        state.withLockedValue { $0.links[linkID] = link }
        inbound.closeFuture.whenComplete { [weak self] _ in
            _ = self?.state.withLockedValue { $0.links.removeValue(forKey: linkID) }
        }
        return ClientBootstrap(group: inbound.eventLoop)
            .channelOption(ChannelOptions.autoRead, value: false)
            .connect(host: "127.0.0.1", port: upstreamPort)
            .flatMap { outbound in
                self.track(outbound)
                // Both channels live on the same event loop, so the pipelines are changed in place.
                return inbound.eventLoop.makeCompletedFuture {
                    let (toServer, toClient) = GlueHandler.pair(link)
                    try inbound.pipeline.syncOperations.addHandler(toServer)
                    try outbound.pipeline.syncOperations.addHandler(toClient)
                }.flatMap {
                    // Reading starts only now, so no byte arrives before the glue is in place.
                    inbound.setOption(ChannelOptions.autoRead, value: true)
                        .and(outbound.setOption(ChannelOptions.autoRead, value: true)).map { _ in }
                }
            }
            .flatMapError { _ in inbound.close() }
    }

    private func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLockedValue { $0.connections[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.state.withLockedValue { $0.connections.removeValue(forKey: id) }
        }
    }
}

/// What one proxied connection does with its bytes now: forward (after a delay) or nothing.
private final class LinkControl: Sendable {
    private let mode: NIOLockedValueBox<(stalled: Bool, delay: TimeAmount)>

    init(delay: TimeAmount) {
        mode = NIOLockedValueBox((false, delay))
    }

    func stall() { mode.withLockedValue { $0.stalled = true } }
    func setDelay(_ delay: TimeAmount) { mode.withLockedValue { $0.delay = delay } }
    var current: (stalled: Bool, delay: TimeAmount) { mode.withLockedValue { $0 } }
}

/// Forwards reads from one channel as writes to its partner, with back-pressure, and closes
/// the partner when either side closes (swift-nio's classic proxy glue), obeying its link's
/// stall and delay.
private final class GlueHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: GlueHandler?
    private var context: ChannelHandlerContext?
    private var pendingRead = false
    private let link: LinkControl

    private init(link: LinkControl) {
        self.link = link
    }

    static func pair(_ link: LinkControl) -> (GlueHandler, GlueHandler) {
        let first = GlueHandler(link: link)
        let second = GlueHandler(link: link)
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    private func partnerWrite(_ data: NIOAny) { context?.writeAndFlush(data, promise: nil) }
    private func partnerClose() { context?.close(promise: nil) }
    private var partnerWritable: Bool { context?.channel.isWritable ?? false }

    private func partnerBecameWritable() {
        if pendingRead {
            pendingRead = false
            context?.read()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let (stalled, delay) = link.current
        if stalled { return }
        guard delay > .zero else {
            partner?.partnerWrite(data)
            return
        }
        // Deadlines only grow, so delayed writes keep their order.
        let partner = self.partner
        context.eventLoop.assumeIsolated().scheduleTask(in: delay) { partner?.partnerWrite(data) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let (stalled, delay) = link.current
        // A stalled link carries nothing, not even a close: the other side must find out by itself.
        if stalled { return }
        guard delay > .zero else {
            partner?.partnerClose()
            return
        }
        let partner = self.partner
        context.eventLoop.assumeIsolated().scheduleTask(in: delay) { partner?.partnerClose() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.partnerBecameWritable() }
    }

    func read(context: ChannelHandlerContext) {
        if let partner, partner.partnerWritable {
            context.read()
        } else {
            pendingRead = true
        }
    }
}
