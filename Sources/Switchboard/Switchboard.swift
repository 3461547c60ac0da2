// The platform layer: connections, pool and leases, keeper, builder, message center.
// Nothing here imports the Socket.IO client except the adapters in `Adapters/`.

// What feature code needs beside this module, so `import Switchboard` is enough: payloads are
// `JSONValue`s (objects `JSONObject`s), and `wss` trusts `TrustRoots`. The wire formats stay in
// `SocketIOProtocol`, for whoever imports it.
@_exported public import enum SocketIOProtocol.JSONValue
@_exported public import struct SocketIOProtocol.JSONObject
// The runtime's public API is exactly what users name (its plumbing is `package`): network
// monitors and paths, trust roots, WebSocket messages.
@_exported public import SwitchboardCore
