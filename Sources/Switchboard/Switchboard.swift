// The platform layer: connections, pool and leases, keeper, builder, message center.
// Nothing here imports the Socket.IO client except the adapters in `Adapters/`.

// Payloads are `JSONValue`s: `import Switchboard` is enough to use them.
@_exported public import SocketIOProtocol
