import Testing

/// The platform scenarios against real servers over loopback, once per technology.
@Suite("Platform integration", .serialized)
struct PlatformIntegrationTests {
    @Test(arguments: IntegrationBackend.all)
    func sharedConnectionThroughAnOutage(_ backend: IntegrationBackend) async throws {
        try await PlatformScenarios.sharedConnectionThroughAnOutage(backend)
    }

    @Test(arguments: IntegrationBackend.all)
    func builderConnectionRoundTrip(_ backend: IntegrationBackend) async throws {
        try await PlatformScenarios.builderConnectionRoundTrip(backend)
    }
}
