import SocketIOProtocol

/// What a namespace does for the other servers of its cluster: the local half of every
/// cluster operation (socket.io's in-memory adapter under its cluster adapter).
protocol ClusterReceiver: AnyObject, Sendable {
    /// Sends `packet` to this server's sockets that `options` select; `origin` is its sender
    /// and number, when it has one.
    func clusterBroadcast(_ packet: ClusterPacket, options: ClusterBroadcastOptions, origin: ClusterOrigin?)
    /// Another server's numbered message that is not a broadcast was applied (or is about to be).
    func clusterAdvance(_ origin: ClusterOrigin)
    /// Sends `packet` asking for acknowledgements: `onCount` once with how many sockets it went
    /// to, `onAck` for each acknowledgement's first argument.
    func clusterBroadcastWithAck(
        _ packet: ClusterPacket,
        options: ClusterBroadcastOptions,
        onCount: @escaping @Sendable (Int) -> Void,
        onAck: @escaping @Sendable (JSONValue) -> Void
    )
    func clusterJoin(options: ClusterBroadcastOptions, rooms: [String])
    func clusterLeave(options: ClusterBroadcastOptions, rooms: [String])
    func clusterDisconnect(options: ClusterBroadcastOptions, close: Bool)
    /// This server's sockets that `options` select.
    func clusterSockets(options: ClusterBroadcastOptions) -> [RemoteSocket]
    /// An event from another server; `reply` is set when it waits for one answer.
    func clusterServerSideEmit(_ packet: [JSONValue], reply: (@Sendable (JSONValue) -> Void)?)
}

/// Who sent a numbered cluster message, and its number.
struct ClusterOrigin: Sendable, Hashable {
    var uid: String
    var sequence: UInt64
}
