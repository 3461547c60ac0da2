/// What a recovery across the cluster came to (``ClientConnection/restoreFromCluster(_:pid:offset:auth:recovery:)``).
enum ClusterRestoreOutcome: Equatable {
    /// The client has its session back.
    case restored
    /// Connect the client afresh: a session this server took is removed from the store,
    /// so it is not kept (and marked as seen) for nobody.
    case connectAfresh
    /// Close the connection: the client comes back (elsewhere) with the same offset.
    case sendElsewhere
}
