// The platform layer: connections, pool and leases, keeper, builder, message center.
// Nothing here imports the Socket.IO client except the adapters in `Adapters/`.

// What feature code needs beside this module, so `import Switchboard` is enough: payloads are
// `JSONValue`s (objects `JSONObject`s), and `wss` trusts `TrustRoots`. The wire formats stay in
// `SocketIOProtocol`, for whoever imports it.
@_exported public import enum SocketIOProtocol.JSONValue
@_exported public import struct SocketIOProtocol.JSONObject
@_exported public import enum SwitchboardCore.TrustRoots
@_exported public import protocol SwitchboardCore.NetworkMonitor
@_exported public import struct SwitchboardCore.NetworkPath
@_exported public import enum SwitchboardCore.NetworkMonitors
@_exported public import class SwitchboardCore.ManualNetworkMonitor
@_exported public import class SwitchboardCore.NetworkObservation
