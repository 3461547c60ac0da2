import SocketIOProtocol

/// One transport connection carrying a failover channel: envelopes out, envelopes in, one end.
/// The adapters make them (`WebSocketLink`, `SocketIOLink`): the channel knows no transport.
protocol FailoverLink: Sendable {
    func send(_ envelope: Envelope)
    func close()
}

/// What a link reports: an envelope (or why a message was not one), then one end.
enum FailoverLinkEvent: Sendable {
    case envelope(Result<Envelope, EnvelopeError>)
    case ended(String)
}
