// The Socket.IO client: `Manager`, `Socket`, `io(url)`, over the Engine.IO client in `Engine/`.
//
// What users name beside this module, so `import SocketIO` is enough: the wire formats and JSON
// values (`SocketIOProtocol`), and from the shared runtime the network monitors, the trust roots
// and the one `WebSocketMessage`.
@_exported public import SocketIOProtocol
@_exported public import protocol SwitchboardCore.NetworkMonitor
@_exported public import struct SwitchboardCore.NetworkPath
@_exported public import enum SwitchboardCore.NetworkMonitors
@_exported public import class SwitchboardCore.ManualNetworkMonitor
@_exported public import class SwitchboardCore.NetworkObservation
@_exported public import enum SwitchboardCore.TrustRoots
@_exported public import enum SwitchboardCore.WebSocketMessage
