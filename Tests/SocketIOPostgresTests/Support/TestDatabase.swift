import Foundation
import Logging
import SocketIOServer
import SwitchboardTestSupport

@testable import SocketIOPostgres

/// The PostgreSQL server of the database tests: `SWITCHBOARD_POSTGRES_URL`, which
/// `scripts/test` sets after `scripts/postgres start`. Without it ``url()`` prints a loud skip
/// line and returns `nil` — or throws when `SWITCHBOARD_REQUIRE_PEERS=1`.
/// The PostgreSQL server of the database tests (``TestPostgres``, shared with the other test
/// targets): names, options and a logger of this suite's own.
enum TestDatabase {
    typealias Failure = TestPostgres.Failure

    static var required: Bool { TestPostgres.required }

    static func url() throws -> String? { try TestPostgres.sharedURL() }

    /// A name no other test uses: tables and channel prefixes keep the tests apart.
    static func unique(_ prefix: String) -> String {
        "\(prefix)_\(UInt32.random(in: 0 ... .max))"
    }

    static let logger: Logger = {
        var logger = Logger(label: "SocketIOPostgresTests")
        logger.logLevel = .error
        return logger
    }()

    /// Options with a table and channel prefix of the test's own, and reconnections in 50–100 ms.
    static func options(_ name: String) -> PostgresClusterTransport.Options {
        PostgresClusterTransport.Options(
            channelPrefix: "\(name)-io",
            tableName: name,
            reconnectDelay: .milliseconds(50) ... .milliseconds(100)
        )
    }

    @discardableResult
    static func psql(_ url: String, _ sql: String) async throws -> String {
        try await TestPostgres.psql(url, sql)
    }

    @discardableResult
    static func script(_ command: String) async throws -> String {
        try await TestPostgres.script(command)
    }
}

/// The messages a subscription delivers, as a stream to await.
struct Inbox {
    let messages: AsyncStream<ClusterMessage>
    let deliver: @Sendable (ClusterMessage) -> Void

    init() {
        let (messages, continuation) = AsyncStream.makeStream(of: ClusterMessage.self)
        self.messages = messages
        deliver = { continuation.yield($0) }
    }

    /// The sequence numbers of the messages that arrive, up to the one numbered `last`.
    func sequences(through last: UInt64, within seconds: Double, _ what: String) async throws -> [UInt64] {
        try await withTimeout(seconds, what) {
            var numbers: [UInt64] = []
            for await message in messages {
                numbers.append(message.sequence ?? 0)
                if message.sequence == last { break }
            }
            return numbers
        }
    }

    /// What the adapter applies of `numbers`: each number above the highest so far (copies and
    /// late ones dropped), starting above `first`.
    static func applied(_ numbers: [UInt64], after first: UInt64) -> [UInt64] {
        var highest = first
        return numbers.filter { number in
            guard number > highest else { return false }
            highest = number
            return true
        }
    }
}

extension TestDatabase {
    /// A loopback port nothing listens on (just released).
    static func freePort() async throws -> Int {
        let text = try await TestPostgres.run("/usr/bin/env", [
            "python3", "-c",
            "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1]); s.close()",
        ])
        guard let port = Int(text) else { throw Failure(description: "no free port: \(text)") }
        return port
    }
}

