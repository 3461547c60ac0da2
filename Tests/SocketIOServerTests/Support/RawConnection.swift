import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw TCP connection to the server on loopback, for tests that need exact bytes: hand-made
/// HTTP requests, WebSocket frames, garbage, abrupt drops.
///
/// A thread of its own does the blocking reads (never the cooperative pool, which the server
/// in the same process needs); readers await bytes with ``read(_:)``, which is cancellable.
/// `@unchecked Sendable`: all mutable state is guarded by `lock`.
final class RawConnection: @unchecked Sendable {
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the connection closed" }
    }

    private let fd: Int32
    private let lock = NSLock()
    private var buffer: [UInt8] = []
    private var eof = false
    private var generation = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// While set, the reader thread waits on the gate instead of reading: the kernel buffers
    /// fill and the server sees a client that does not read.
    private let readGate = NSCondition()
    private var paused = false

    /// Stops reading from the socket (a stalled client).
    func pauseReading() {
        readGate.withLock { paused = true }
    }

    /// Reads again (and wakes the reader waiting on the gate).
    func resumeReading() {
        readGate.withLock {
            paused = false
            readGate.broadcast()
        }
    }

    /// Connects to 127.0.0.1:`port`, from `source` (another loopback address, such as
    /// `127.0.0.2`, to look like a second client machine) when given.
    static func connect(port: Int, from source: String? = nil) throws -> RawConnection {
        #if canImport(Glibc) || canImport(Musl)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if let source, withIPv4(source, port: 0, { Foundation.bind(fd, $0, $1) }) != 0 {
            Foundation.close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        guard withIPv4("127.0.0.1", port: port, { Foundation.connect(fd, $0, $1) }) == 0 else {
            Foundation.close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return RawConnection(fd: fd)
    }

    /// Calls `body` (`bind` or `connect`) with the IPv4 socket address `ip`:`port`.
    private static func withIPv4(_ ip: String, port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(ip)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    private init(fd: Int32) {
        self.fd = fd
        // The thread holds the connection weakly: a connection the test forgets is closed
        // when it is released, so no reader thread outlives its test (and the process).
        Thread.detachNewThread { [weak self, fd = self.fd] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while let connection = self {
                // The end was read (`eof`): `deinit` closes the descriptor.
                guard connection.readOnce(into: &chunk) else { return }
            }
            // Released while reading: `deinit` shut the socket down and left closing it here.
            _ = Foundation.close(fd)
        }
    }

    /// Waits up to 100 ms for bytes and takes them; `false` once the connection ended.
    private func readOnce(into chunk: inout [UInt8]) -> Bool {
        readGate.withLock {
            while paused { readGate.wait() }
        }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 100)
        if ready == 0 || (ready < 0 && errno == EINTR) { return true }
        let count = ready < 0 ? -1 : chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0, errno == EINTR || errno == EAGAIN { return true }
        lock.lock()
        if count > 0 {
            buffer.append(contentsOf: chunk[0..<count])
        } else {
            eof = true
        }
        generation += 1
        let woken = waiters
        waiters.removeAll()
        lock.unlock()
        for waiter in woken { waiter.resume() }
        return count > 0
    }

    /// The descriptor stays open for writing after the server's FIN (TCP is half-closed: a
    /// client may still send after the server shut its side, as tests of a server that fails a
    /// connection mid-sequence do) until the connection is released. Then either the reader has
    /// read the end and returned, and the descriptor is closed here; or it still polls (holding
    /// no reference between polls), and the shutdown ends its poll, after which it finds the
    /// connection gone and closes the descriptor itself.
    deinit {
        if lock.withLock({ eof }) { _ = Foundation.close(fd) } else { _ = shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Writes every byte (loopback writes of test-sized data do not block for long).
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { throw Closed() }
            offset += sent
        }
    }

    func write(_ text: String) throws {
        try write(Array(text.utf8))
    }

    /// Waits until `parse` finds a complete value at the start of the received bytes; it returns
    /// the value and how many bytes it used, or `nil` to wait for more.
    func read<T>(_ parse: ([UInt8]) throws -> (T, consumed: Int)?) async throws -> T {
        while true {
            try Task.checkCancellation()
            let (value, seen, closed): (T?, Int, Bool) = try lock.withLock {
                if let (value, consumed) = try parse(buffer) {
                    buffer.removeFirst(consumed)
                    return (value, generation, eof)
                }
                return (nil, generation, eof)
            }
            if let value { return value }
            if closed { throw Closed() }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = lock.withLock {
                        if generation != seen || eof || Task.isCancelled { return true }
                        waiters.append(continuation)
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                self.wakeAll()
            }
        }
    }

    private func wakeAll() {
        let woken = lock.withLock {
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in woken { waiter.resume() }
    }

    /// Waits for a response's status line (`HTTP/1.1 200 OK`) and returns it; the rest of what
    /// has arrived is discarded.
    func statusLine() async throws -> String {
        try await read { bytes -> (String, consumed: Int)? in
            guard let text = String(bytes: bytes, encoding: .utf8), let end = text.range(of: "\r\n") else { return nil }
            return (String(text[..<end.lowerBound]), bytes.count)
        }
    }

    /// Waits until the server closes the connection.
    func waitForClose() async throws {
        while true {
            do {
                // Discard whatever arrives until the end.
                _ = try await read { bytes -> (Int, consumed: Int)? in bytes.isEmpty ? nil : (0, bytes.count) }
            } catch is Closed {
                return
            }
        }
    }

    /// Closes both directions at once, without any goodbye (an abrupt drop).
    func close() {
        resumeReading()
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }
}
