extension Envelope {
    /// The envelope's sequence number on a reliable channel: `event`, `request` and `reply`
    /// carry one; the channel's own envelopes (`ack`, `resume`, `resumed`, `error`) do not.
    public var seq: UInt64? {
        switch self {
        case .event(_, _, let seq), .request(_, _, _, let seq), .reply(_, _, let seq): seq
        case .error, .ack, .resume, .resumed: nil
        }
    }

    /// The envelope numbered `seq` (unchanged when its type carries no number).
    public func numbered(_ seq: UInt64) -> Envelope {
        switch self {
        case .event(let name, let data, _): .event(name: name, data: data, seq: seq)
        case .request(let name, let data, let id, _): .request(name: name, data: data, id: id, seq: seq)
        case .reply(let id, let data, _): .reply(id: id, data: data, seq: seq)
        case .error, .ack, .resume, .resumed: self
        }
    }
}
