package import NIOCore
package import NIOPosix
import NIOSSL
package import SwitchboardCore
#if canImport(Glibc)
import Glibc
#endif

/// The network under a WebSocket: the bootstrap and the TLS of one connection, on the event
/// loop it is given. The client builds everything above the bootstrap the same way on every
/// platform; only this choice differs:
/// - a Network.framework loop (`NIOTSEventLoopGroup`, the default on Apple platforms):
///   `NIOTSConnectionBootstrap`, TLS by `NWProtocolTLS.Options` — the system's trust — in
///   `TransportStack+Apple.swift`, which only Apple's toolchains compile;
/// - any other loop (Linux; an Apple test on a `MultiThreadedEventLoopGroup`): `ClientBootstrap`
///   and TLS by NIOSSL, through ``socketsTLS``.
package struct TransportStack: Sendable {
    /// Adds TLS to a sockets bootstrap for one server (`secure` servers only).
    package typealias SocketsTLS = @Sendable (ClientBootstrap, ServerAddress, TrustRoots) throws -> NIOClientTCPBootstrap

    /// How long the TCP connect may take (on Network.framework: TCP and TLS together).
    package var connectTimeout: TimeAmount
    package var settings: NetworkSettings
    /// The TLS of a sockets bootstrap: NIOSSL by default; tests put a provider of their own.
    package var socketsTLS: SocketsTLS = TransportStack.nioSSL

    package init(connectTimeout: TimeAmount, settings: NetworkSettings = NetworkSettings()) {
        self.connectTimeout = connectTimeout
        self.settings = settings
    }

    /// The event loops connections run on by default: Network.framework's on Apple platforms
    /// (WebSocket and long-polling alike), NIO's sockets group elsewhere.
    package static var defaultGroup: any EventLoopGroup {
        #if canImport(Network)
        appleGroup
        #else
        MultiThreadedEventLoopGroup.singleton
        #endif
    }

    /// The bootstrap for `address` on `eventLoop`, TLS enabled for a secure address. Not
    /// `Sendable`: build it and connect in one go.
    package func bootstrap(for address: ServerAddress, trustRoots: TrustRoots, on eventLoop: any EventLoop) throws -> NIOClientTCPBootstrap {
        #if canImport(Network)
        if let apple = try appleBootstrap(for: address, trustRoots: trustRoots, on: eventLoop) { return apple }
        #endif
        var base = ClientBootstrap(group: eventLoop).connectTimeout(connectTimeout)  // TCP_NODELAY is on by default
        if let keepAlive = settings.tcpKeepAlive {
            base = base.channelOption(ChannelOptions.socketOption(.so_keepalive), value: 1)
            #if os(Linux)
            base = base.channelOption(
                ChannelOptions.tcpOption(NIOBSDSocket.Option(rawValue: TCP_KEEPIDLE)),
                value: SocketOptionValue(Self.seconds(keepAlive))
            )
            #endif
        }
        guard address.secure else { return NIOClientTCPBootstrap(base, tls: NIOInsecureNoTLS()) }
        return try socketsTLS(base, address, trustRoots)
    }

    /// NIOSSL: the roots of `trustRoots`, SNI from the host name (none for an IP address).
    package static let nioSSL: SocketsTLS = { base, address, trustRoots in
        let context = try NIOSSLContext(configuration: trustRoots.tlsConfiguration())
        let tls = try NIOSSLClientTLSProvider<ClientBootstrap>(context: context, serverHostname: address.serverHostname)
        return NIOClientTCPBootstrap(base, tls: tls).enableTLS()
    }

    /// Whole seconds, at least one.
    static func seconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }
}
