import NIOCore
import NIOHTTP1
import NIOPosix
import SwitchboardCore
import SwitchboardTestSupport
import Testing
@testable import WebSocketClient

/// The polling transport's HTTP/1.1 client against a scripted server on loopback: connections
/// kept alive and reused, a server's close honoured, a repeatable request whose reused connection
/// the server had closed retried once (one that is not repeatable never sent twice), and every
/// way a request can fail reported as the error it is.
@Suite("HTTP/1.1 connection pool")
struct HTTP1ConnectionPoolTests {
    private func pool(port: Int, proxy: (host: String, port: Int)? = nil) -> HTTP1ConnectionPool {
        HTTP1ConnectionPool(configuration: .init(
            address: ServerAddress(secure: false, host: "127.0.0.1", port: port), trustRoots: .system,
            stack: TransportStack(connectTimeout: .seconds(10)), proxy: proxy,
            eventLoop: MultiThreadedEventLoopGroup.singleton.next()))
    }

    /// A scripted server and a pool in front of it for `body`; both stopped afterwards.
    private func withPool(_ body: (ScriptedHTTPServer, HTTP1ConnectionPool) async throws -> Void) async throws {
        let server = try await ScriptedHTTPServer.start()
        let pool = pool(port: server.port)
        do {
            try await body(server, pool)
        } catch {
            pool.shutdown()
            await server.stop()
            throw error
        }
        pool.shutdown()
        await server.stop()
    }

    private func get(_ pool: HTTP1ConnectionPool, _ path: String, maxBodySize: Int = 1 << 20,
                     timeout: TimeAmount? = .seconds(30), repeatable: Bool = true) async throws -> HTTP1Response {
        try await pool.execute(
            HTTP1Request(method: .GET, target: path, repeatable: repeatable), maxBodySize: maxBodySize, timeout: timeout)
    }

    @Test("requests one after another share one kept-alive connection; bodies go both ways")
    func keepsConnectionsAlive() async throws {
        try await withPool { server, pool in
            for number in 0..<5 {
                let request = HTTP1Request(method: .POST, target: "/echo?n=\(number)", body: ByteBuffer(string: "body \(number)"))
                let response = try await pool.execute(request, maxBodySize: 1024, timeout: .seconds(30))
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "body \(number)")
                #expect(response.keepAlive)
            }
            #expect(server.accepted == 1)
            #expect(pool.openConnections == 1)
        }
    }

    @Test("a response with Connection: close is not reused: the next request opens a new connection")
    func honoursConnectionClose() async throws {
        try await withPool { server, pool in
            let first = try await get(pool, "/close")
            #expect(!first.keepAlive)
            #expect(String(buffer: first.body) == "bye")
            _ = try await get(pool, "/echo")
            #expect(server.accepted == 2)
        }
    }

    @Test("a kept-alive connection the server closed is replaced: the request succeeds on a new one")
    func retriesAConnectionTheServerClosed() async throws {
        try await withPool { server, pool in
            var events = server.events.makeAsyncIterator()
            _ = try await get(pool, "/drop")
            #expect(await events.next() == .accepted(1))
            // Whether the pool hears of the close before the next request or only when it fails
            // on it, the request succeeds on a second connection.
            #expect(await events.next() == .closed(1))
            let response = try await get(pool, "/echo")
            #expect(response.status == .ok)
            #expect(server.accepted == 2)
        }
    }

    @Test("a kept-alive connection the server resets when it is reused (ECONNRESET, not a FIN) is replaced too")
    func retriesAConnectionTheServerReset() async throws {
        try await withPool { server, pool in
            _ = try await get(pool, "/reset-reused")
            // The same connection carries the next request; the server resets it without an answer.
            let response = try await get(pool, "/reset-reused")
            #expect(response.status == .ok)
            #expect(server.accepted == 2)
        }
    }

    @Test("a request that is not repeatable is never sent twice: the reset of its reused connection reaches the caller")
    func doesNotRepeatWhatTheServerMayHaveRead() async throws {
        // An Engine.IO poll is such a request: the server may have answered it on the connection
        // that was cut, and the same request on a new connection would lose that answer.
        try await withPool { server, pool in
            _ = try await get(pool, "/reset-reused", repeatable: false)
            await #expect(throws: HTTP1ClientError.connectionClosed(beforeResponse: true)) {
                _ = try await get(pool, "/reset-reused", repeatable: false)
            }
            #expect(server.accepted == 1, "no second connection: the request was not sent again")
            // The next request opens a new connection.
            #expect(try await get(pool, "/echo", repeatable: false).status == .ok)
            #expect(server.accepted == 2)
        }
    }

    @Test("a connection is not reused in the last second of the server's Keep-Alive timeout; within it, it is")
    func honoursKeepAliveTimeout() async throws {
        try await withPool { server, pool in
            // timeout=1: no time left to reuse it safely, the next request opens a new connection.
            _ = try await get(pool, "/keep-alive?timeout=1", repeatable: false)
            _ = try await get(pool, "/keep-alive?timeout=60", repeatable: false)
            #expect(server.accepted == 2)
            // timeout=60: reused.
            _ = try await get(pool, "/echo", repeatable: false)
            #expect(server.accepted == 2)
        }
        #expect(HTTP1ConnectionPool.reuseWindow(["Keep-Alive": "timeout=5, max=1000"]) == .seconds(4))
        #expect(HTTP1ConnectionPool.reuseWindow(["Keep-Alive": "max=5"]) == nil)
        #expect(HTTP1ConnectionPool.reuseWindow([:]) == nil)
        // Whatever a server sends: no overflow, no negative window.
        #expect(HTTP1ConnectionPool.reuseWindow(["Keep-Alive": "timeout=99999999999999"]) == .seconds(86_400))
        #expect(HTTP1ConnectionPool.reuseWindow(["Keep-Alive": "timeout=-5"]) == .seconds(0))
        #expect(HTTP1ConnectionPool.reuseWindow(["Keep-Alive": "timeout=\(Int64.min)"]) == .seconds(0))
        #expect(HTTP1ConnectionPool.reuseWindow(["Keep-Alive": "timeout=\(Int64.max)"]) == .seconds(86_400))
        #expect(HTTP1ConnectionPool.reuseWindow(["Keep-Alive": "timeout=abc"]) == nil)
    }

    @Test("a body over the limit fails with bodyTooLarge and closes the connection")
    func refusesABodyOverTheLimit() async throws {
        try await withPool { server, pool in
            await #expect(throws: HTTP1ClientError.bodyTooLarge(limit: 1000)) {
                _ = try await get(pool, "/big", maxBodySize: 1000)
            }
            var events = server.events.makeAsyncIterator()
            #expect(await events.next() == .accepted(1))
            #expect(await events.next() == .closed(1))
            let big = try await get(pool, "/big")
            #expect(big.body.readableBytes == 64 * 1024)
        }
    }

    @Test("a response that does not come within the timeout fails with timedOut")
    func timesOut() async throws {
        try await withPool { server, pool in
            await #expect(throws: HTTP1ClientError.timedOut) {
                _ = try await get(pool, "/hang", timeout: .milliseconds(50))
            }
            var events = server.events.makeAsyncIterator()
            #expect(await events.next() == .accepted(1))
            #expect(await events.next() == .closed(1))
        }
    }

    @Test("a cancelled request throws CancellationError and closes its connection")
    func cancellationClosesTheConnection() async throws {
        try await withPool { server, pool in
            var events = server.events.makeAsyncIterator()
            let request = Task { try await get(pool, "/hang", timeout: nil) }
            #expect(await events.next() == .accepted(1))
            request.cancel()
            await #expect(throws: CancellationError.self) { try await request.value }
            #expect(await events.next() == .closed(1))
        }
    }

    @Test("shutdown fails the request in flight and every later one")
    func shutdownEndsEverything() async throws {
        try await withPool { server, pool in
            var events = server.events.makeAsyncIterator()
            let request = Task { try await get(pool, "/hang", timeout: nil) }
            #expect(await events.next() == .accepted(1))
            pool.shutdown()
            await #expect(throws: HTTP1ClientError.shutDown) { try await request.value }
            #expect(await events.next() == .closed(1))
            await #expect(throws: HTTP1ClientError.shutDown) { _ = try await get(pool, "/echo") }
            #expect(pool.openConnections == 0)
        }
    }

    @Test("a refused connection fails at once with cannotConnect")
    func refusedConnection() async throws {
        let server = try await ScriptedHTTPServer.start()
        let port = server.port
        await server.stop()
        let pool = pool(port: port)
        await #expect {
            _ = try await get(pool, "/echo")
        } throws: { error in
            guard case HTTP1ClientError.cannotConnect(_, port, _) = error else { return false }
            return true
        }
    }

    @Test("a proxy that refuses the CONNECT tunnel: proxyRefused with its status")
    func proxyRefusesTheTunnel() async throws {
        let server = try await ScriptedHTTPServer.start()
        let pool = HTTP1ConnectionPool(configuration: .init(
            address: ServerAddress(secure: true, host: "localhost", port: 443), trustRoots: .system,
            stack: TransportStack(connectTimeout: .seconds(10)), proxy: ("127.0.0.1", server.port),
            eventLoop: MultiThreadedEventLoopGroup.singleton.next()))
        await #expect(throws: HTTP1ClientError.proxyRefused(status: 407)) { _ = try await get(pool, "/echo") }
        pool.shutdown()
        await server.stop()
    }

    /// A proxy that accepts the connection and never answers `CONNECT`: the request ends by its
    /// timeout, its task's cancellation, or the pool's shutdown. Before, it waited for good in
    /// each case (and a polling POST stuck there kept `Manager.close()` from returning).
    @Test("a proxy that never answers CONNECT: timed out, cancelled, or shut down")
    func aSilentProxyEndsTheRequest() async throws {
        let accepted = AsyncStream.makeStream(of: Void.self)
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                accepted.continuation.yield()
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        func throughSilentProxy() -> HTTP1ConnectionPool {
            HTTP1ConnectionPool(configuration: .init(
                address: ServerAddress(secure: true, host: "localhost", port: 443), trustRoots: .system,
                stack: TransportStack(connectTimeout: .seconds(10)), proxy: ("127.0.0.1", port),
                eventLoop: MultiThreadedEventLoopGroup.singleton.next()))
        }
        let timing = throughSilentProxy()
        await #expect(throws: HTTP1ClientError.timedOut) {
            try await withTimeout(10, "the request's timeout") { _ = try await get(timing, "/echo", timeout: .milliseconds(200)) }
        }
        timing.shutdown()

        let cancelling = throughSilentProxy()
        let cancelled = Task { _ = try await get(cancelling, "/echo", timeout: nil) }
        _ = try await accepted.stream.first(2, within: 10, "the proxy accepting the second request")
        cancelled.cancel()
        await #expect(throws: CancellationError.self) {
            try await withTimeout(10, "the cancelled request") { try await cancelled.value }
        }
        cancelling.shutdown()

        let stopping = throughSilentProxy()
        let stopped = Task { _ = try await get(stopping, "/echo", timeout: nil) }
        _ = try await accepted.stream.first(1, within: 10, "the proxy accepting the third request")
        stopping.shutdown()
        await #expect(throws: HTTP1ClientError.shutDown) {
            try await withTimeout(10, "the request of a pool shut down") { try await stopped.value }
        }
        try await silent.close()
    }

    @Test("cookies the server sets go back with every later request; Max-Age=0 removes one")
    func keepsCookies() async throws {
        let server = try await ScriptedHTTPServer.start()
        let jar = CookieJar()
        let pool = HTTP1ConnectionPool(configuration: .init(
            address: ServerAddress(secure: false, host: "127.0.0.1", port: server.port), trustRoots: .system,
            stack: TransportStack(connectTimeout: .seconds(10)),
            eventLoop: MultiThreadedEventLoopGroup.singleton.next(), cookies: jar))
        #expect(String(buffer: try await get(pool, "/cookie?set=SERVERID=app02").body) == "")
        #expect(String(buffer: try await get(pool, "/cookie?set=io=abc").body) == "SERVERID=app02")
        #expect(String(buffer: try await get(pool, "/cookie?set=SERVERID=app03").body) == "SERVERID=app02; io=abc")
        #expect(String(buffer: try await get(pool, "/cookie?set=io=").body) == "io=abc; SERVERID=app03")
        #expect(String(buffer: try await get(pool, "/cookie").body) == "SERVERID=app03")
        pool.shutdown()
        await server.stop()
    }

    @Test("Set-Cookie lines: name and value, quotes dropped, deletion by Max-Age or a 1970 Expires")
    func parsesSetCookie() {
        #expect(CookieJar.parse("SERVERID=app01; Path=/; HttpOnly")! == ("SERVERID", "app01", false))
        #expect(CookieJar.parse("io=\"x y\"")! == ("io", "x y", false))
        #expect(CookieJar.parse("io=; Max-Age=0")! == ("io", "", true))
        #expect(CookieJar.parse("io=a; expires=Thu, 01 Jan 1970 00:00:00 GMT")! == ("io", "a", true))
        #expect(CookieJar.parse("=novalue") == nil)
        #expect(CookieJar.parse("garbage") == nil)
    }

    @Test("the CONNECT answer's status line is read as the proxy wrote it")
    func readsTheTunnelStatus() {
        #expect(ProxyTunnelHandler.status(ofHead: "HTTP/1.1 200 Connection established") == 200)
        #expect(ProxyTunnelHandler.status(ofHead: "HTTP/1.0 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic") == 407)
        #expect(ProxyTunnelHandler.status(ofHead: "SSH-2.0-OpenSSH") == nil)
        #expect(ProxyTunnelHandler.endOfHead(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\n").readableBytesView) == 15)
        #expect(ProxyTunnelHandler.endOfHead(ByteBuffer(string: "HTTP/1.1 200 OK\r\n").readableBytesView) == nil)
    }
}
