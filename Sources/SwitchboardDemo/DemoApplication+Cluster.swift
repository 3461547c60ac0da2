import Foundation
import SocketIOProtocol
import SocketIOServer

extension DemoApplication {
    /// The contract's cluster events: each works with one server too (the cluster is then just it).
    static let clusterEvents: [DemoEvent] = [
        DemoEvent(usage: "sockets [room]", effect: "describes the namespace's sockets (those in room, if given) on every server of the cluster", ack: #"[[{"id","rooms"}…]] or [{"error"}]"#),
        DemoEvent(usage: "sockets-join room", effect: "makes every socket of the namespace, on every server, join the room", ack: "[room]"),
        DemoEvent(usage: "sockets-leave room", effect: "makes every socket of the namespace, on every server, leave the room", ack: "[room]"),
        DemoEvent(usage: "disconnect-all", effect: "disconnects every socket of the namespace on every server", ack: "[], before the disconnect"),
        DemoEvent(usage: "ask-servers …args", effect: #"sends demo-question with the args to the other servers, each answering {"pid","items"}"#, ack: #"[[answers]] or [{"error"}]"#),
        DemoEvent(usage: "ask-clients …args", effect: "emits question with the args to every socket of the namespace on every server, each asked for an ack (5 s)", ack: #"[[each client's first ack item]] or [{"error","responses"}]"#),
    ]

    /// Answers the other servers' `demo-question` with this process's id and the items.
    static func answerServerQuestions(on namespace: Namespace) {
        let pid = Double(ProcessInfo.processInfo.processIdentifier)
        namespace.onServerSideEmit { event in
            guard event.name == "demo-question" else { return }
            event.reply(["pid": .number(pid), "items": .array(event.items)])
        }
    }

    static func installClusterEvents(on socket: ServerSocket) {
        let namespace = socket.namespace
        socket.on("sockets") { event in
            let room = event.items.first?.stringValue
            Task {
                do {
                    let selection = room.map { namespace.to($0) } ?? namespace.all
                    let sockets = try await selection.fetchSockets()
                    let described: [JSONValue] = sockets.sorted { $0.id < $1.id }.map {
                        ["id": .string($0.id), "rooms": .array($0.rooms.map(JSONValue.string))]
                    }
                    event.ack?.respond([.array(described)])
                } catch {
                    event.ack?.respond([["error": .string("\(error)")]])
                }
            }
        }
        onRoomEvent("sockets-join", of: socket) { namespace.all.socketsJoin($0) }
        onRoomEvent("sockets-leave", of: socket) { namespace.all.socketsLeave($0) }
        socket.on("disconnect-all") { event in
            event.ack?.respond([])
            namespace.disconnectSockets()
        }
        socket.on("ask-servers") { event in
            Task {
                do {
                    let answers = try await namespace.serverSideEmitWithAck("demo-question", items: event.items)
                    event.ack?.respond([.array(answers)])
                } catch {
                    event.ack?.respond([["error": .string("\(error)")]])
                }
            }
        }
        socket.on("ask-clients") { event in
            Task {
                do {
                    let answers = try await namespace.all.emitWithAck("question", items: event.items, timeout: .seconds(5))
                    event.ack?.respond([.array(answers)])
                } catch let timeout as BroadcastAckTimeout {
                    event.ack?.respond([["error": .string("\(timeout)"), "responses": .array(timeout.responses)]])
                } catch {
                    event.ack?.respond([["error": .string("\(error)"), "responses": []]])
                }
            }
        }
    }
}
