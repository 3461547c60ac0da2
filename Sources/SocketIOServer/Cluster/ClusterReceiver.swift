import SocketIOProtocol

/// What a namespace does for the other servers of its cluster: the local half of every
/// cluster operation (socket.io's in-memory adapter under its cluster adapter).
protocol ClusterReceiver: AnyObject, Sendable {
    /// Sends `packet` to this server's sockets that `options` select.
    func clusterBroadcast(_ packet: ClusterPacket, options: ClusterBroadcastOptions)
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
