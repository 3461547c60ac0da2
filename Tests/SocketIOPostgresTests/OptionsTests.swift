import Testing

@testable import SocketIOPostgres

/// Options refused before connecting: no database needed (the URL names a port nothing
/// listens on, so an accepted option ends in `unreachable`).
@Suite("PostgreSQL transport options")
struct OptionsTests {
    static func connect(payloadThreshold: Int) async -> PostgresClusterTransportError? {
        var options = PostgresClusterTransport.Options()
        options.payloadThreshold = payloadThreshold
        return await connect(options)
    }

    static func connect(_ options: PostgresClusterTransport.Options) async -> PostgresClusterTransportError? {
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

    @Test(
        "a keep-alive interval or query timeout that is not positive, or a keep-alive timeout not longer than its interval, is refused",
        arguments: [
            (Duration.zero, Duration.seconds(10), Duration.seconds(10)),
            (.seconds(5), .seconds(5), .seconds(10)),
            (.seconds(5), .seconds(1), .seconds(10)),
            (.seconds(5), .seconds(10), .zero),
            (.seconds(5), .seconds(10), .seconds(-1)),
        ]
    )
    func timingRefused(interval: Duration, timeout: Duration, queryTimeout: Duration) async {
        let options = PostgresClusterTransport.Options(keepAliveInterval: interval, keepAliveTimeout: timeout, queryTimeout: queryTimeout)
        guard case .invalidOption = await Self.connect(options) else {
            Issue.record("\(interval), \(timeout), \(queryTimeout) was accepted")
            return
        }
    }

    @Test("the default keep-alive (5 s, 10 s) and query timeout (10 s) are accepted")
    func timingDefaults() async {
        let options = PostgresClusterTransport.Options()
        #expect(options.keepAliveInterval == .seconds(5) && options.keepAliveTimeout == .seconds(10) && options.queryTimeout == .seconds(10))
        if case .invalidOption(let reason) = await Self.connect(options) { Issue.record("refused: \(reason)") }
    }
}
