import Foundation
import SocketIO

/// The lines `sio connect` prints: `←` what arrives, `→` what was sent, `↩` an ack's items,
/// `·` what happens to the connection, `error:` what went wrong.
enum SessionOutput {
    static func incoming(_ event: SocketEvent) -> String {
        let asks = event.ack == nil ? "" : "  (the server asked for an ack; sio connect does not send one)"
        return "← \(name(event.name)) \(JSONValue.array(event.items).jsonString)\(asks)"
    }

    static func sent(_ event: String, _ items: [JSONValue]) -> String {
        "→ \(name(event)) \(JSONValue.array(items).jsonString)"
    }

    static func ackReply(_ items: [JSONValue]) -> String {
        "↩ \(JSONValue.array(items).jsonString)"
    }

    static func error(_ message: String) -> String {
        "error: \(message)"
    }

    static func status(_ status: SocketStatus) -> String {
        switch status {
        case .notConnected: "· not connected"
        case .connecting: "· connecting"
        case .connected(let id): "· connected as \(id)"
        case .disconnected(let reason): "· disconnected (\(reason))"
        }
    }

    /// A manager event's line; heartbeats (every 25 s with socket.io's defaults) only when
    /// asked for, or they would bury everything else.
    static func manager(_ event: ManagerEvent, pings: Bool) -> String? {
        switch event {
        case .open: "· connection open"
        case .ping: pings ? "· ping" : nil
        case .upgrade: "· upgraded to websocket"
        case .close(let reason): "· connection closed (\(reason))"
        case .error(let message): "· connection error: \(message)"
        case .reconnectAttempt(let attempt): "· reconnecting, attempt \(attempt)"
        case .reconnectError(let message): "· reconnect attempt failed: \(message)"
        case .reconnect(let attempts): "· reconnected after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        case .reconnectFailed: "· reconnection failed; gave up"
        }
    }

    /// The `status` command's answer.
    static func report(manager: Manager, socket: Socket) -> [String] {
        let connection: String
        switch socket.status {
        case .connected: connection = "yes"
        case .notConnected, .connecting, .disconnected: connection = "no, \(socket.status)"
        }
        return [
            "connected:  \(connection)",
            "id:         \(socket.id ?? "-")",
            "url:        \(manager.url.absoluteString)  namespace \(socket.namespace)",
            "transport:  \(manager.transport.map { "\($0)" } ?? "-")",
            "engine:     \(manager.engineIOVersion) (\(manager.engineIOVersion.socketIOVersion))",
            "recovered:  \(socket.recovered ? "yes" : "no")",
        ]
    }

    /// The lines after connecting.
    static func banner(manager: Manager, socket: Socket) -> [String] {
        let transport = manager.transport.map { ", \($0)" } ?? ""
        return [
            "connected to \(manager.url.absoluteString) as \(socket.id ?? "?")",
            "namespace \(socket.namespace), \(manager.engineIOVersion)\(transport); type help for the commands",
        ]
    }

    /// An event name as typed: a bare word, or a JSON string when it has spaces or is empty.
    private static func name(_ event: String) -> String {
        event.isEmpty || event.contains(where: \.isWhitespace) || event.first == "\""
            ? JSONValue.string(event).jsonString : event
    }
}
