// The Socket.IO client: `Manager`, `Socket`, `io(url)`, over the Engine.IO client in `Engine/`.
//
// What users name beside this module, so `import SocketIO` is enough: the wire formats and JSON
// values (`SocketIOProtocol`), and from the shared runtime the network monitors, the trust roots
// and the one `WebSocketMessage`.
@_exported public import SocketIOProtocol
// The runtime's public API is exactly what users name (its plumbing is `package`).
@_exported public import SwitchboardCore
