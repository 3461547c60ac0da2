import Foundation
import NIOConcurrencyHelpers
import SocketIO
import Switchboard

/// `sio bench --churn N`: connections coming and going. Each round connects `clients` clients
/// at once (`io(url)` over `transports`, or a platform `Connection` of `kind`), each makes one
/// acknowledged `ack` round trip, holds for `hold`, and closes; the next round starts when every
/// client of this one is closed.
///
/// What it is for: a server or client that grows with every connection it has served shows it
/// here, round after round — CPU per round (this process, and the server's when its pid is
/// given) and resident memory at the end of each round should stay flat.
struct ChurnBench: Sendable {
    var url: URL
    var namespace: String
    var clients: Int
    var rounds: Int
    var hold: Duration
    /// How long a client may take to connect and get its ack before it counts as refused.
    var within: Duration = .seconds(5)
    /// `sio serve`'s pid, to read its CPU and memory from `/proc`.
    var serverPID: Int32?
    /// The Socket.IO client's transports (`--transport`).
    var transports: [EngineTransportKind] = [.websocket]
    /// A platform connection of this kind instead of the Socket.IO client (`--churn-kind`): the
    /// plain WebSocket endpoint and the failover channels have connection lives of their own.
    var kind: ConnectionBench.Kind?

    struct Round: Sendable {
        var index: Int
        var connected: Int
        var seconds: Double
        var clientCPU: Double
        var clientMB: Double?
        var serverCPU: Double?
        var serverMB: Double?
        /// Why the first client that did not make it failed (nil when all did).
        var firstFailure: String?
    }

    func run() async throws -> [Round] {
        var results: [Round] = []
        for index in 1...rounds {
            let usage = ProcessUsage.now()
            let server = serverPID.flatMap(ServerUsage.read)
            let start = ContinuousClock.now
            let (connected, firstFailure) = await round()
            let seconds = (ContinuousClock.now - start).inSeconds
            let serverAfter = serverPID.flatMap(ServerUsage.read)
            let result = Round(
                index: index, connected: connected, seconds: seconds,
                clientCPU: ProcessUsage.now().since(usage).cpuSeconds,
                clientMB: BenchRunner.residentMegabytes(),
                serverCPU: server.flatMap { before in serverAfter.map { $0.cpuSeconds - before.cpuSeconds } },
                serverMB: serverAfter?.residentMB,
                firstFailure: firstFailure
            )
            StandardOutput.errorLine("churn \(Self.row(result).joined(separator: "  "))")
            results.append(result)
        }
        return results
    }

    /// One round: how many clients connected and got their ack in time, and why the first that
    /// did not failed.
    private func round() async -> (connected: Int, firstFailure: String?) {
        if let kind { return await round(through: kind) }
        var configuration = Manager.Configuration()
        configuration.transports = transports
        configuration.reconnection = false
        configuration.connectTimeout = within
        let options = configuration
        let (url, namespace, hold, within) = (url, namespace, hold, within)
        return await Self.count(clients) {
            let socket: Socket
            do {
                socket = try await io(url, namespace: namespace, configuration: options)
            } catch {
                return "connect: \(error)"
            }
            do {
                _ = try await socket.timeout(within).emitWithAck("ack", "churn")
            } catch {
                await socket.io.close()
                return "ack: \(error)"
            }
            if hold > .zero { try? await Task.sleep(for: hold) }
            await socket.io.close()
            return nil
        }
    }

    /// One round through platform connections of `kind`: connect, one `ack` request, release.
    private func round(through kind: ConnectionBench.Kind) async -> (connected: Int, firstFailure: String?) {
        let (hold, within) = (hold, within)
        let made: (DriverConnectionFactory, URL)
        do {
            made = try kind.factory(base: url)
        } catch {
            return (0, "\(error)")
        }
        let (factory, target) = made
        var configuration = ConnectionConfiguration(url: target, namespace: kind == .socketIO ? namespace : nil)
        configuration.connectTimeout = within
        configuration.requestTimeout = within
        let options = configuration
        return await Self.count(clients) {
            let connection: any Connection
            do {
                connection = try factory.makeConnection(for: options)
            } catch {
                return "\(error)"
            }
            var failure: String?
            do {
                try await connection.connect()
                _ = try await connection.request("ack", "churn")
                if hold > .zero { try? await Task.sleep(for: hold) }
            } catch {
                failure = "\(error)"
            }
            await connection.disconnectAndRelease()
            return failure
        }
    }

    /// Runs `client` `clients` times at once: how many returned no failure, and the first failure.
    private static func count(_ clients: Int, _ client: @escaping @Sendable () async -> String?) async -> (connected: Int, firstFailure: String?) {
        await withTaskGroup(of: String?.self) { group in
            for _ in 0..<clients { group.addTask { await client() } }
            var result: (connected: Int, firstFailure: String?) = (0, nil)
            for await failure in group {
                if let failure { result.firstFailure = result.firstFailure ?? failure } else { result.connected += 1 }
            }
            return result
        }
    }

    static let headers = ["round", "connected", "time s", "client CPU s", "client RSS MB", "server CPU s", "server RSS MB"]

    static func row(_ round: Round) -> [String] {
        func figure(_ value: Double?, _ digits: Int) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "–" }
        return ["\(round.index)", "\(round.connected)", figure(round.seconds, 2), figure(round.clientCPU, 2),
                figure(round.clientMB, 1), figure(round.serverCPU, 2), figure(round.serverMB, 1)]
    }

    static func table(target: String, clients: Int, hold: Duration, kind: String, _ rounds: [Round]) -> String {
        MetricTable.render(
            title: "sio bench --churn: \(clients) \(kind) clients a round against \(target), each: connect, one ack, hold \(hold), close",
            headers: headers, rows: rounds.map(row)
        )
    }

    static func json(_ rounds: [Round]) -> JSONValue {
        .array(rounds.map { round in
            var object = JSONObject()
            object["round"] = .number(Double(round.index))
            object["connected"] = .number(Double(round.connected))
            object["seconds"] = .number(round.seconds)
            object["clientCPUSeconds"] = .number(round.clientCPU)
            object["clientRSSMB"] = round.clientMB.map(JSONValue.number) ?? .null
            object["serverCPUSeconds"] = round.serverCPU.map(JSONValue.number) ?? .null
            object["serverRSSMB"] = round.serverMB.map(JSONValue.number) ?? .null
            return .object(object)
        })
    }
}

/// Another process's CPU time and resident memory, from `/proc/PID/stat` and `/proc/PID/status`.
struct ServerUsage {
    var cpuSeconds: Double
    var residentMB: Double?

    static func read(_ pid: Int32) -> ServerUsage? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ServerUsage(cpuSeconds: (user + system) / ticks, residentMB: BenchRunner.residentMegabytes(ofProcess: "\(pid)"))
    }
}
