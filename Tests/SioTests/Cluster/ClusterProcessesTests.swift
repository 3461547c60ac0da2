import Foundation
import SocketIO
import SocketIOProtocol
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Three `sio serve --cluster postgres://…` processes on a real PostgreSQL (socket.io's
/// postgres-adapter protocol), a client of ours on each.
@Suite("Cluster: sio serve processes through PostgreSQL")
struct ClusterProcessesTests {
    @Test("broadcasts, rooms, socketsJoin/fetchSockets/disconnectSockets, server-side emits, acks and a 100 KB binary broadcast cross the servers")
    func threeServers() async throws {
        guard let sio = SioBinary.orSkip("threeServers"), let server = try PostgresDatabase.serverURL(for: "threeServers") else { return }
        try await ServeCluster.with(3, sio: sio, on: server) { cluster, database in
            try await Self.exercise(cluster, database: database)
        }
    }

    static func exercise(_ cluster: ServeCluster, database: PostgresDatabase) async throws {
        let sockets = cluster.sockets
        let ids = sockets.compactMap(\.id)
        #expect(ids.count == 3)

        // A broadcast from any server reaches the clients of the other two (not the sender).
        for (index, sender) in sockets.enumerated() {
            let others = sockets.indices.filter { $0 != index }
            let streams = others.map { sockets[$0].events(named: "broadcast") }
            _ = try await sender.emitWithAck("broadcast", .string("from \(index)"))
            for stream in streams {
                #expect(try await stream.first(1, "the broadcast from \(index)").map(\.items) == [[.string("from \(index)")]])
            }
        }

        // A room spanning servers 0 and 2 gets a message from server 1 once per member.
        _ = try await sockets[0].emitWithAck("join", "r")
        _ = try await sockets[2].emitWithAck("join", "r")
        let members = [sockets[0], sockets[2]].map { $0.events(named: "room-message") }
        let outside = sockets[1].events(named: "room-message")
        _ = try await sockets[1].emitWithAck("room-message", "r", "hello room")
        _ = try await sockets[1].emitWithAck("room-message", "r", "second")
        for stream in members {
            #expect(try await stream.first(2, "the room messages").map(\.items) == [["r", "hello room"], ["r", "second"]])
        }

        // socketsJoin from server 0 reaches every server's socket; fetchSockets from the same
        // server (its messages arrive in order) sees them all in the room.
        _ = try await sockets[0].emitWithAck("sockets-join", "everyone")
        let described = try await sockets[0].emitWithAck("sockets", "everyone")
        let inRoom = described.first?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        #expect(Set(inRoom) == Set(ids), "\(described)")
        let everyone = sockets.map { $0.events(named: "room-message") }
        _ = try await sockets[1].emitWithAck("room-message", "everyone", "to all three")
        for stream in everyone {
            #expect(try await stream.first(1, "the message to the joined room").map(\.items) == [["everyone", "to all three"]])
        }
        // The non-member of r saw none of r's messages: its first room message is this one.
        #expect(try await outside.first(1, "the first room message outside r").map(\.items) == [["everyone", "to all three"]])

        // Server-side emit with an answer from each of the two other servers.
        let answers = try await sockets[2].emitWithAck("ask-servers", "question")
        let pids = Set(answers.first?.arrayValue?.compactMap { $0["pid"]?.intValue } ?? [])
        #expect(pids.count == 2, "\(answers)")
        #expect(pids.allSatisfy { pid in cluster.processes.contains { $0.pid == pid } })

        // A broadcast with acks gathers every client's ack (each answers with its id).
        let acks = try await sockets[1].emitWithAck("ask-clients", "q")
        #expect(Set(acks.first?.arrayValue?.compactMap(\.stringValue) ?? []) == Set(ids), "\(acks)")

        // 100 KB of binary through the attachments table, byte-exact.
        let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let binaryStreams = [sockets[0], sockets[2]].map { $0.events(named: "broadcast") }
        _ = try await sockets[1].emitWithAck("broadcast", .binary(bytes))
        for stream in binaryStreams {
            #expect(try await stream.first(1, "the binary broadcast").map(\.items) == [[.binary(bytes)]])
        }
        let stored = try await database.query("SELECT count(*) FROM socket_io_attachments WHERE octet_length(payload) > 100000")
        #expect((Int(stored) ?? 0) >= 1, "attachments: \(stored)")

        // A malformed notification (psql) is skipped; every server keeps serving.
        try await database.query(#"NOTIFY "socket.io#/", 'not json'"#)
        try await database.query(#"NOTIFY "socket.io#/", '{"uid":"feedfacefeedface","type":3,"nsp":"/","data":{"opts":1}}'"#)
        let after = [sockets[0], sockets[1]].map { $0.events(named: "broadcast") }
        _ = try await sockets[2].emitWithAck("broadcast", "after the bad notifications")
        for stream in after {
            #expect(try await stream.first(1, "a broadcast after the malformed ones").map(\.items) == [["after the bad notifications"]])
        }

        // disconnectSockets from server 2 reaches every server's socket.
        let disconnects = sockets.map { $0.events(named: "disconnect") }
        _ = try await sockets[2].emitWithAck("disconnect-all")
        for stream in disconnects {
            _ = try await stream.first(1, "the disconnect")
        }
    }

    @Test("a killed server is forgotten after the heartbeat timeout; requests stop waiting for it")
    func killedServer() async throws {
        guard let sio = SioBinary.orSkip("killedServer"), let server = try PostgresDatabase.serverURL(for: "killedServer") else { return }
        let extra = ["--cluster-heartbeat-interval", "300", "--cluster-heartbeat-timeout", "1500"]
        try await ServeCluster.with(3, sio: sio, on: server, extra: extra) { cluster, _ in
            cluster.processes[2].signal(SIGKILL)
            _ = await cluster.processes[2].exit()
            for process in cluster.processes.prefix(2) {
                _ = try await process.line(containing: "cluster server seems down", within: 30)
            }
            let answers = try await cluster.sockets[0].emitWithAck("ask-servers", "still there?")
            #expect(answers.first?.arrayValue?.count == 1, "\(answers)")
        }
    }

    @Test("PostgreSQL restarted during a broadcast stream: every broadcast reaches every other server once, in order")
    func restartDuringStream() async throws {
        guard let sio = SioBinary.orSkip("restartDuringStream"),
              let postgres = try await PrivatePostgres.start(for: "restartDuringStream") else { return }
        do {
            try await ServeCluster.with(3, sio: sio, on: postgres.url) { cluster, _ in
                let receivers = [cluster.sockets[1], cluster.sockets[2]].map { $0.events(named: "broadcast") }
                let sender = cluster.sockets[0]
                for index in 0..<100 { _ = try await sender.emitWithAck("broadcast", .number(Double(index))) }
                try await postgres.pause()
                for index in 100..<200 { _ = try await sender.emitWithAck("broadcast", .number(Double(index))) }
                try await postgres.resume()
                for index in 200..<300 { _ = try await sender.emitWithAck("broadcast", .number(Double(index))) }
                _ = try await sender.emitWithAck("broadcast", "end")
                let expected: [[JSONValue]] = (0..<300).map { [.number(Double($0))] } + [["end"]]
                for stream in receivers {
                    // All 300 and the marker, in order: nothing lost, nothing twice.
                    #expect(try await stream.first(301, within: 60, "the stream across the restart").map(\.items) == expected)
                }
                for process in cluster.processes {
                    #expect(!process.stderr.contains("cluster messages lost"), "\(process.stderr)")
                }
            }
            await postgres.stop()
        } catch {
            await postgres.stop()
            throw error
        }
    }
}
