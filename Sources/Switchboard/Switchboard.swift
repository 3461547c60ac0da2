// The platform layer: connections, pool and leases, keeper, builder, message center.
// Nothing here imports the Socket.IO client except the adapters in `Adapters/`.
