import Logging

/// The log handler Hummingbird gets for one connection: it passes everything on, except that once
/// the server closed the connection on purpose (its first request head took too long, or the
/// server is stopping) Hummingbird's complaints about it — "Error handling upgrade result" for
/// the negotiation our close ended — are only debug messages. A stop that races a reconnecting
/// client is a normal stop, not an error.
struct DeliberateCloseLogHandler: LogHandler {
    var base: any LogHandler
    let closedOnPurpose: @Sendable () -> Bool

    func log(event: LogEvent) {
        var event = event
        if event.level > .debug, closedOnPurpose() {
            event.level = .debug
            guard base.logLevel <= .debug else { return }
        }
        base.log(event: event)
    }

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }
}
