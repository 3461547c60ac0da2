#if os(Linux)
import Foundation
import Glibc

/// The network path on Linux: a netlink route socket reports every change of links and
/// addresses (what `ip monitor` shows); after each, the usable interfaces are read again with
/// `getifaddrs`, and a path that differs from the last is reported.
///
/// One thread per process, started by the first watcher, blocked in `recv` on the socket. Where
/// the socket cannot be opened (a sandbox without netlink), the path is read once and never
/// changes: managers then rely on the heartbeat alone.
final class LinuxNetworkMonitor: NetworkMonitor {
    static let shared = LinuxNetworkMonitor()

    private let broadcast = PathBroadcast()

    func paths() -> AsyncStream<NetworkPath> {
        if broadcast.start(reading: Self.readPath) { startWatching() }
        return broadcast.paths()
    }

    func observe(_ handler: @escaping @Sendable (NetworkPath) -> Void) -> NetworkObservation {
        if broadcast.start(reading: Self.readPath) { startWatching() }
        return broadcast.observe(handler)
    }

    // MARK: - Netlink

    /// `struct sockaddr_nl` (linux/netlink.h, not in Glibc's module map).
    private struct NetlinkAddress {
        var family = UInt16(AF_NETLINK)
        var pad: UInt16 = 0
        var pid: UInt32 = 0
        var groups: UInt32
    }

    private static let netlinkRoute: Int32 = 0  // NETLINK_ROUTE
    private static let groups: UInt32 = 0x1 | 0x10 | 0x100  // RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR

    private func startWatching() {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Self.netlinkRoute)
        guard fd >= 0 else { return }
        var address = NetlinkAddress(groups: Self.groups)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<NetlinkAddress>.size))
            }
        }
        guard bound == 0 else {
            close(fd)
            return
        }
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0 && (errno == EINTR || errno == ENOBUFS) { continue }
                // ENOBUFS: messages were lost; the path is read whole anyway.
                guard count >= 0 else { break }
                changed()
            }
            close(fd)
        }
    }

    private func changed() {
        broadcast.report(Self.readPath())
    }

    // MARK: - Reading the path

    /// The interfaces that are up and running, with their addresses; satisfied when one of them
    /// other than loopback has an address.
    static func readPath() -> NetworkPath {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return .satisfied }
        defer { freeifaddrs(list) }
        var interfaces: [String: NetworkPath.Interface] = [:]
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            let flags = Int32(bitPattern: current.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_RUNNING) != 0 else { continue }
            let name = String(cString: current.pointee.ifa_name)
            let loopback = flags & Int32(IFF_LOOPBACK) != 0
            var interface = interfaces[name] ?? NetworkPath.Interface(name: name, kind: loopback ? .loopback : kind(of: name))
            if let address = current.pointee.ifa_addr {
                let family = Int32(address.pointee.sa_family)
                if family == AF_INET || family == AF_INET6 {
                    let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
                    if let host = RouteProbe.numericHost(address, length) { interface.addresses.append(host) }
                }
            }
            interfaces[name] = interface
        }
        let usable = interfaces.values.filter { !$0.addresses.isEmpty }
            .map { NetworkPath.Interface(name: $0.name, kind: $0.kind, addresses: $0.addresses.sorted()) }
            .sorted { $0.name < $1.name }
        let satisfied = usable.contains { $0.kind != .loopback }
        return NetworkPath(status: satisfied ? .satisfied : .unsatisfied, interfaces: usable)
    }

    /// The kind, guessed from the kernel's naming (`wl*` Wi-Fi, `ww*` cellular modems,
    /// `eth*`/`en*` Ethernet).
    static func kind(of name: String) -> NetworkPath.InterfaceKind {
        if name.hasPrefix("wl") { return .wifi }
        if name.hasPrefix("ww") { return .cellular }
        if name.hasPrefix("eth") || name.hasPrefix("en") { return .wiredEthernet }
        return .other
    }
}
#endif
