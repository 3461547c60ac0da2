import Testing

@testable import SocketIOPostgres

/// Options refused before connecting: no database needed (the URL names a port nothing
/// listens on, so an accepted option ends in `unreachable`).
@Suite("PostgreSQL transport options")
struct OptionsTests {
    static func connect(payloadThreshold: Int) async -> PostgresClusterTransportError? {
        var options = PostgresClusterTransport.Options()
        options.payloadThreshold = payloadThreshold
        do {
            let transport = try await PostgresClusterTransport.connect(url: "postgres://postgres@127.0.0.1:1/postgres", options: options, logger: TestDatabase.logger)
            await transport.shutdown()
            return nil
        } catch {
            return error
        }
    }

    @Test("a payload threshold PostgreSQL cannot notify (over 8000 bytes), or not positive, is refused", arguments: [0, -1, 8001, 65_536])
    func thresholdOutOfRange(threshold: Int) async {
        guard case .invalidOption = await Self.connect(payloadThreshold: threshold) else {
            Issue.record("threshold \(threshold) was accepted")
            return
        }
    }

    @Test("thresholds of 1 to 8000 are accepted", arguments: [1, 7999, 8000])
    func thresholdInRange(threshold: Int) async {
        if case .invalidOption(let reason) = await Self.connect(payloadThreshold: threshold) {
            Issue.record("threshold \(threshold) refused: \(reason)")
        }
    }
}
