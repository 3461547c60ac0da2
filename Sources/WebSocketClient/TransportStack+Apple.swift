#if canImport(Network)
// Apple platforms only. This file cannot be compiled on the Linux machine the project is built
// and tested on: it is kept to the choice of bootstrap, group and TLS options, and every call was
// checked line by line against swift-nio-transport-services 1.28.0 (`NIOTSConnectionBootstrap`,
// `NIOTSClientTLSProvider`, `NIOTSChannelOptions`, `NIOTSEventLoopGroup.singleton`) and against
// AsyncHTTPClient 1.37.0's use of them (`TLSConfiguration.getNWProtocolTLSOptions`), which the
// polling transport used before it had its own connections.
import Dispatch
import Foundation
import Network
import NIOCore
import NIOSSL
import NIOTransportServices
import Security
import SwitchboardCore

extension TransportStack {
    /// Network.framework's shared group.
    static var appleGroup: any EventLoopGroup { NIOTSEventLoopGroup.singleton }

    /// `NIOTSConnectionBootstrap` with the system's TLS for a Network.framework `eventLoop`;
    /// `nil` for any other loop (then sockets and NIOSSL serve it).
    func appleBootstrap(for address: ServerAddress, trustRoots: TrustRoots, on eventLoop: any EventLoop) throws -> NIOClientTCPBootstrap? {
        guard let base = NIOTSConnectionBootstrap(validatingGroup: eventLoop) else { return nil }
        let tcp = NWProtocolTCP.Options()
        if let keepAlive = settings.tcpKeepAlive {
            tcp.enableKeepalive = true
            tcp.keepaliveIdle = Self.seconds(keepAlive)
        }
        let settings = self.settings
        let bootstrap = base
            .tcpOptions(tcp)
            // Fail at once when the server is unreachable, as sockets do, instead of waiting
            // for connectivity until the timeout (the manager reconnects on a path change).
            .channelOption(NIOTSChannelOptions.waitForActivity, value: false)
            // Set here, not in `configureNWParameters`: the channel overwrites that field.
            .withMultipath(settings.multipath.serviceType)
            .configureNWParameters { parameters in
                parameters.prohibitExpensivePaths = settings.prohibitExpensivePaths
                parameters.prohibitConstrainedPaths = settings.prohibitConstrainedPaths
            }
            .connectTimeout(connectTimeout)
        guard address.secure else { return NIOClientTCPBootstrap(bootstrap, tls: NIOInsecureNoTLS()) }
        let tls = NIOTSClientTLSProvider(tlsOptions: try Self.tlsOptions(for: address, trustRoots: trustRoots))
        return NIOClientTCPBootstrap(bootstrap, tls: tls).enableTLS()
    }

    private static let verifyQueue = DispatchQueue(label: "switchboard.websocket.tls-verify")

    /// The certificates a custom trust evaluation accepts as roots (CF objects, never mutated).
    private final class Anchors: @unchecked Sendable {
        let certificates: [SecCertificate]
        init(_ certificates: [SecCertificate]) { self.certificates = certificates }
    }

    /// TLS 1.2 or later, SNI from the host name; the system's trust (user- and MDM-installed
    /// roots, App Transport Security), or exactly the roots of `trustRoots`.
    static func tlsOptions(for address: ServerAddress, trustRoots: TrustRoots) throws -> NWProtocolTLS.Options {
        let options = NWProtocolTLS.Options()
        let security = options.securityProtocolOptions
        sec_protocol_options_set_min_tls_protocol_version(security, .TLSv12)
        if let name = address.serverHostname { sec_protocol_options_set_tls_server_name(security, name) }
        let certificates: [NIOSSLCertificate]
        switch trustRoots {
        case .system: return options
        case .pemFile(let path): certificates = try NIOSSLCertificate.fromPEMFile(path)
        case .pem(let text): certificates = try NIOSSLCertificate.fromPEMBytes(Array(text.utf8))
        }
        let anchors = Anchors(try certificates.map { certificate in
            guard let anchor = SecCertificateCreateWithData(nil, Data(try certificate.toDERBytes()) as CFData) else {
                throw NIOSSLError.failedToLoadCertificate
            }
            return anchor
        })
        let queue = verifyQueue
        sec_protocol_options_set_verify_block(security, { _, trustRef, complete in
            let trust = sec_trust_copy_ref(trustRef).takeRetainedValue()
            SecTrustSetAnchorCertificates(trust, anchors.certificates as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, true)
            SecTrustEvaluateAsyncWithError(trust, queue) { _, trusted, _ in complete(trusted) }
        }, queue)
        return options
    }
}

extension NetworkSettings.Multipath {
    /// Network.framework's name for it.
    var serviceType: NWParameters.MultipathServiceType {
        switch self {
        case .disabled: .disabled
        case .handover: .handover
        case .interactive: .interactive
        case .aggregate: .aggregate
        }
    }
}
#endif
