@_exported public import SocketIOProtocol
