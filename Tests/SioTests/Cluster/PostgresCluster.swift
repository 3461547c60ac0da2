import Foundation
import SocketIO
import SocketIOProtocol
import SwitchboardTestSupport

/// A database of its own on the test PostgreSQL (`SWITCHBOARD_POSTGRES_URL`, which `scripts/test`
/// starts), so that tests running at once never hear each other: `LISTEN`/`NOTIFY` channels
/// belong to one database.
struct PostgresDatabase: Sendable {
    let url: String
    let name: String
    private let admin: String

    /// The test database server's URL; `nil` after a loud skip line (a failure with
    /// `SWITCHBOARD_REQUIRE_PEERS=1`).
    static func serverURL(for test: String) throws -> String? {
        #if Cluster
        try TestPostgres.sharedURL(for: test)
        #else
        // `sio` was built without the Cluster trait (plain `swift test`): it has no PostgreSQL
        // transport. `scripts/test` builds with `--traits Cluster`.
        FileHandle.standardError.write(Data("⚠️ SKIPPED \(test): sio was built without the Cluster trait (swift test --traits Cluster runs it; scripts/test does)\n".utf8))
        return nil
        #endif
    }

    /// Creates a fresh database on the server at `serverURL`.
    static func create(on serverURL: String) async throws -> PostgresDatabase {
        let name = "cluster_" + UUID().uuidString.prefix(8).lowercased()
        let database = PostgresDatabase(url: Self.replacingDatabase(of: serverURL, with: name), name: name, admin: serverURL)
        _ = try await database.admin(#"CREATE DATABASE "\#(name)""#)
        return database
    }

    /// Runs SQL with `psql` on the server's own database; returns its unaligned output.
    @discardableResult
    func admin(_ sql: String) async throws -> String {
        try await Self.psql(admin, sql)
    }

    /// Runs SQL with `psql` in this database; returns its unaligned output.
    @discardableResult
    func query(_ sql: String) async throws -> String {
        try await Self.psql(url, sql)
    }

    /// Drops the database (its connections first).
    func drop() async {
        _ = try? await admin(#"DROP DATABASE IF EXISTS "\#(name)" WITH (FORCE)"#)
    }

    private static func psql(_ url: String, _ sql: String) async throws -> String {
        try await TestPostgres.psql(url, sql)
    }

    private static func replacingDatabase(of url: String, with name: String) -> String {
        var components = URLComponents(string: url)!
        components.path = "/" + name
        return components.string!
    }
}

/// `count` `sio serve --cluster` processes on one database, each with a client of ours on `/`.
struct ServeCluster: Sendable {
    let processes: [BackgroundChild]
    let urls: [URL]
    let managers: [Manager]
    let sockets: [SocketIO.Socket]

    static func start(_ count: Int, sio: String, database: PostgresDatabase, extra: [String] = []) async throws -> ServeCluster {
        let (environment, _) = try ChildProcess.isolatedEnvironment()
        var processes: [BackgroundChild] = []
        var urls: [URL] = []
        do {
            for _ in 0..<count {
                let process = try BackgroundChild(sio, ["serve", "--port", "0", "--cluster", database.url] + extra, environment: environment)
                processes.append(process)
            }
            for process in processes {
                let ready = try await process.line(containing: "sio serve: listening on", within: 60)
                urls.append(try URL(string: String(ready.split(separator: " ").last ?? "")).orThrow("no URL in \(ready)"))
            }
            // Each hears the other servers' first heartbeats.
            for process in processes {
                try await process.lines(containing: "cluster server joined", count: count - 1, within: 30)
            }
        } catch {
            for process in processes { process.signal(SIGKILL) }
            throw error
        }
        var managers: [Manager] = []
        var sockets: [SocketIO.Socket] = []
        for url in urls {
            var configuration = Manager.Configuration()
            configuration.transports = [.websocket]
            configuration.reconnection = false
            let manager = try Manager(url: url, configuration: configuration)
            let socket = manager.socket(namespace: "/")
            try await withTimeout(10, "connect") { try await socket.connect() }
            socket.on("question") { event in event.ack?.respond([.string(socket.id ?? "")]) }
            managers.append(manager)
            sockets.append(socket)
        }
        return ServeCluster(processes: processes, urls: urls, managers: managers, sockets: sockets)
    }

    /// A fresh database on the server at `serverURL`, `count` servers on it; runs `body`, then
    /// stops the servers and drops the database, also when `body` throws.
    static func with(
        _ count: Int,
        sio: String,
        on serverURL: String,
        extra: [String] = [],
        _ body: (ServeCluster, PostgresDatabase) async throws -> Void
    ) async throws {
        let database = try await PostgresDatabase.create(on: serverURL)
        let cluster: ServeCluster
        do {
            cluster = try await start(count, sio: sio, database: database, extra: extra)
        } catch {
            await database.drop()
            throw error
        }
        do {
            try await body(cluster, database)
        } catch {
            await cluster.stop()
            await database.drop()
            throw error
        }
        await cluster.stop()
        await database.drop()
    }

    /// Stops the clients and the servers (SIGTERM, then waits).
    func stop() async {
        for manager in managers { await manager.close() }
        for process in processes { process.signal(SIGTERM) }
        for process in processes {
            _ = try? await withTimeout(10, "sio serve exits") { await process.exit() }
            process.signal(SIGKILL)
            process.remove()
        }
    }
}

extension Optional {
    func orThrow(_ message: @autoclosure () -> String) throws -> Wrapped {
        guard let self else { throw ChildProcessError(message()) }
        return self
    }
}
