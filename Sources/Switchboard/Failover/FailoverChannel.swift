import SocketIOProtocol
import SwitchboardCore
import Logging

/// The vocabulary of a failover channel's state machine that names no link, waiter or listener:
/// its inputs, what it logs and publishes, its background tasks and what the driver's read-only
/// properties show (``FailoverChannelStateMachine``).
enum FailoverChannel {
    /// What the app sends.
    enum Outgoing: Sendable, Hashable {
        case event(name: String, data: JSONValue)
        /// A request; the machine gives it its id.
        case request(name: String, data: JSONValue)
        /// The answer to the server's request `id` (numbered: it survives a switch).
        case reply(id: Int, data: [JSONValue])
        /// Nobody answers the server's request `id`: on the current link only (not numbered).
        case decline(id: Int, message: String)
    }

    /// A timer of the channel.
    enum Timer: Sendable, Hashable {
        /// The policy's interval (``FailoverOptions/tickInterval``): stalls and time-based rules.
        case tick
        /// The short acknowledgement delay after a delivery.
        case ackDelay
        /// Attempt `generation` waited `timeout` for `resumed`.
        case resumeDeadline(generation: Int, timeout: Duration)
    }

    /// Where a send that waits for room in the window stands.
    enum RoomWait: Sendable, Hashable {
        /// It holds a slot: send now.
        case holding
        /// Acknowledgements will admit it (``FailoverChannelStateMachine/Action/admit``).
        case waiting
        /// The channel is closed: nothing will make room.
        case closed
    }

    /// The server no longer holds the channel: a new one with id `id`.
    struct NewChannel: Sendable, Hashable {
        let id: String
        let reason: String
    }

    /// A connect attempt may start: its link's generation, and the channel it resumes.
    struct Attempt: Sendable, Hashable {
        let generation: Int
        let channelID: String
    }

    /// What the owner logs.
    enum Note: Sendable, Hashable {
        case resumed(FailoverTransport, resent: Int)
        case transportLost(FailoverTransport, reason: String)
        case switching(to: FailoverTransport, reason: String)
        case serverError(String)

        func log(to logger: Logger) {
            switch self {
            case .resumed(let transport, let resent):
                logger.debug("channel resumed", metadata: ["switchboard.transport": "\(transport)", "switchboard.resent": "\(resent)"])
            case .transportLost(let transport, let reason):
                logger.info("channel transport lost", metadata: ["switchboard.transport": "\(transport)", "switchboard.reason": "\(reason)"])
            case .switching(let target, let reason):
                logger.info("channel switching transport", metadata: ["switchboard.to": "\(target)", "switchboard.reason": "\(reason)"])
            case .serverError(let message):
                logger.warning("the channel's server reported an error", metadata: ["switchboard.error": "\(message)"])
            }
        }
    }

    /// The server's answer to a resume of a channel it does not hold (ReliableChannels' refusal).
    static let unknownChannelMessage = "unknown or expired channel"

    /// The server no longer holds the channel.
    struct ChannelGone: Error {
        let message: String
    }

    /// Events for the app's observers, and the observers as of the transition (yielded after it).
    struct Publication: Sendable {
        let events: [FailoverEvent]
        let observers: ObserverSet<FailoverEvent>

        func run() {
            for event in events { observers.yield(event) }
        }
    }

    /// The tasks an active channel runs besides its links.
    struct Tasks: Sendable {
        enum Role: Sendable, Hashable {
            /// The reconnection running now.
            case supervisor
            /// The policy's interval.
            case ticker
            /// Follows the network path.
            case networkWatch
        }

        private(set) var supervisor: Task<Void, Never>?
        private(set) var ticker: Task<Void, Never>?
        private(set) var networkWatch: Task<Void, Never>?

        var all: [Task<Void, Never>] { [supervisor, ticker, networkWatch].compactMap { $0 } }

        /// Puts `task` in `role`; returns the one it replaces.
        mutating func replace(_ role: Role, with task: Task<Void, Never>) -> Task<Void, Never>? {
            switch role {
            case .supervisor: defer { supervisor = task }; return supervisor
            case .ticker: defer { ticker = task }; return ticker
            case .networkWatch: defer { networkWatch = task }; return networkWatch
            }
        }
    }

    /// What the driver's read-only properties show.
    struct Snapshot: Sendable, Hashable {
        var channelID: String
        var lastTransport: FailoverTransport?
        var generation: Int
        var recovered: Bool?
        var lastSent: UInt64
        var unacknowledged: Int
        var delivered: UInt64
        var supervising: Bool
        var closed = false
        var linkOpen = false
        var resuming = false

        /// The transport carrying the channel now, if a link does.
        var transport: FailoverTransport? { linkOpen ? lastTransport : nil }

        /// One line, for logs and the soak harness (never parsed).
        var diagnostics: String {
            "channel \(channelID): transport \(lastTransport.map { "\($0)" } ?? "none"), "
                + "link \(linkOpen ? "open" : "none"), generation \(generation), "
                + "resuming \(resuming), supervisor \(supervising ? "running" : "none"), "
                + "sent \(lastSent), unacknowledged \(unacknowledged), "
                + "delivered \(delivered), closed \(closed)"
        }
    }
}

extension FailoverChannel.Snapshot {
    /// What `machine` shows now.
    init<Link, Waiter, Listener>(_ machine: FailoverChannelStateMachine<Link, Waiter, Listener>) {
        let ledger = machine.ledger
        self.init(
            channelID: ledger.channelID, lastTransport: machine.transport, generation: machine.generation,
            recovered: ledger.recovered, lastSent: ledger.sender.lastSent, unacknowledged: ledger.sender.unacknowledged.count,
            delivered: ledger.receiver.delivered, supervising: machine.tasks.supervisor != nil
        )
        switch machine.state {
        case .closed: closed = true
        case .active(_, .connected): linkOpen = true
        case .active(_, .resuming): resuming = true
        case .active(_, .none), .active(_, .connecting): break
        }
    }
}
