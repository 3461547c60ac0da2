import Logging
import NIOConcurrencyHelpers

/// The server's namespaces by name.
final class NamespaceRegistry: Sendable {
    private let namespaces = NIOLockedValueBox<[String: Namespace]>([:])
    /// Whether the namespaces' cluster adapters were started (a namespace made later starts its own).
    private let clustersStarted = NIOLockedValueBox(false)
    private let environment: ServerEnvironment

    init(environment: ServerEnvironment) {
        self.environment = environment
    }

    /// The namespace called `name`, made on first use.
    func namespace(_ name: String) -> Namespace {
        let name = Self.normalize(name)
        let (namespace, isNew) = namespaces.withLockedValue { namespaces in
            if let existing = namespaces[name] { return (existing, false) }
            let namespace = Namespace(name: name, environment: environment)
            namespaces[name] = namespace
            return (namespace, true)
        }
        if isNew, namespace.cluster != nil, clustersStarted.withLockedValue({ $0 }) {
            let logger = environment.logger
            Task {
                do {
                    try await namespace.startCluster()
                } catch {
                    logger.error("cannot join the cluster", metadata: ["socketio.namespace": "\(name)", "error": "\(error)"])
                }
            }
        }
        return namespace
    }

    /// Starts every namespace's cluster adapter (subscribes to its channel, says hello).
    func startClusters() async throws {
        clustersStarted.withLockedValue { $0 = true }
        for namespace in all {
            try await namespace.startCluster()
        }
    }

    /// Says goodbye to the cluster in every namespace, then closes the transport.
    func stopClusters() async {
        clustersStarted.withLockedValue { $0 = false }
        for namespace in all {
            await namespace.stopCluster()
        }
        if case .cluster(let transport, _) = environment.configuration.adapter {
            await transport.shutdown()
        }
    }

    /// The namespace called `name`, if the app made it.
    subscript(name: String) -> Namespace? {
        namespaces.withLockedValue { $0[name] }
    }

    var all: [Namespace] { namespaces.withLockedValue { Array($0.values) } }

    /// `chat` → `/chat`; `/chat?x=1` → `/chat` (a v4-protocol client's query).
    static func normalize(_ name: String) -> String {
        SocketNamespace.normalized(SocketNamespace.withoutQuery(name))
    }
}
