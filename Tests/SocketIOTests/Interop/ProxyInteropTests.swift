import Foundation
import SocketIO
import SwitchboardTestSupport
import Testing

/// Polling through a forward HTTP proxy written by others (proxy.py): `http` requests in the
/// proxy's absolute form, `https` through a `CONNECT` tunnel with TLS to the server inside it.
/// The proxy's access log shows the requests went through it.
@Suite("HTTP proxy")
struct ProxyInteropTests {
    @Test("http: the polling requests go through the proxy, and the session works")
    func plainHTTPThroughTheProxy() async throws {
        guard let proxy = try await PythonPeer.start(.proxy) else { return }
        defer { Task.detached { await proxy.stopped() } }
        guard let server = try await PythonPeer.start(.v5) else { return }
        defer { Task.detached { await server.stopped() } }

        var configuration = Manager.Configuration()
        configuration.proxy = HTTPProxy(host: "127.0.0.1", port: proxy.port)
        configuration.reconnection = false
        let manager = try Manager(url: URL(string: server.url)!, configuration: configuration)
        let socket = manager.socket()
        try await withTimeout(30, "connect through the proxy") { try await socket.connect() }
        let reply = try await withTimeout(30, "ack through the proxy") { try await socket.emitWithAck("ack", "proxied") }
        #expect(reply == ["proxied"])
        #expect(manager.transport == .polling, "a manager with a proxy stays on polling")
        await manager.close()
        // proxy.py writes one access line per connection (its first request) when it closes;
        // the close above closed them. Every connection of the transport goes to the proxy.
        try await proxy.waitForLog(containing: ["GET 127.0.0.1:\(server.port)/socket.io/?EIO=4&transport=polling"])
    }

    @Test("https: a CONNECT tunnel, TLS to the server inside it")
    func httpsThroughATunnel() async throws {
        let certificate = try await TestCertificate()
        defer { certificate.remove() }
        guard let proxy = try await PythonPeer.start(.proxy) else { return }
        defer { Task.detached { await proxy.stopped() } }
        guard let server = try await PythonPeer.start(.v5, arguments: certificate.serverArguments) else { return }
        defer { Task.detached { await server.stopped() } }

        var configuration = Manager.Configuration()
        configuration.proxy = HTTPProxy(host: "127.0.0.1", port: proxy.port)
        configuration.trustRoots = .pemFile(certificate.certificatePath)
        configuration.reconnection = false
        let manager = try Manager(url: URL(string: "https://localhost:\(server.port)")!, configuration: configuration)
        let socket = manager.socket()
        try await withTimeout(30, "connect through the tunnel") { try await socket.connect() }
        let reply = try await withTimeout(30, "ack through the tunnel") { try await socket.emitWithAck("ack", "tunnelled") }
        #expect(reply == ["tunnelled"])
        await manager.close()
        try await proxy.waitForLog(containing: ["CONNECT localhost:\(server.port)"])
    }

    #if os(Linux)
    @Test("stopping the proxy peer leaves none of its processes behind (the proxy and its acceptors)")
    func stoppingTheProxyLeavesNoProcess() async throws {
        guard let proxy = try await PythonPeer.start(.proxy) else { return }
        let running = Self.proxyProcesses(port: proxy.port)
        #expect(!running.isEmpty, "the scan finds the running proxy (else the check below proves nothing)")
        await proxy.stopped()
        let left = Self.proxyProcesses(port: proxy.port)
        #expect(left.isEmpty, "proxy processes still running after stop: \(left)")
        for pid in left { kill(pid, SIGKILL) }
    }

    /// The live processes whose command line is proxy.py's on `port` (from `/proc/<pid>/cmdline`;
    /// a reaped process is gone, an unreaped zombie has an empty command line).
    private static func proxyProcesses(port: Int) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard let flag = arguments.firstIndex(of: "-m"), arguments.indices.contains(flag + 1),
                  arguments[flag + 1] == "proxy",
                  let portFlag = arguments.firstIndex(of: "--port"), arguments.indices.contains(portFlag + 1),
                  arguments[portFlag + 1] == String(port) else { return nil }
            return pid
        }
    }
    #endif
}
