import NIOConcurrencyHelpers

/// What the app registered on a namespace: its auth hooks, its connection handlers and its
/// handlers of other servers' events. An owner of its own beside the namespace's membership:
/// registering never waits for a join or a broadcast.
final class NamespaceHandlers: Sendable {
    private struct State {
        var middlewares: [Namespace.Middleware] = []
        var connection: [Namespace.ConnectionHandler] = []
        var serverSide: [@Sendable (ServerSideEvent) async -> Void] = []
    }

    private let state = NIOLockedValueBox(State())

    func add(middleware: @escaping Namespace.Middleware) {
        state.withLockedValue { $0.middlewares.append(middleware) }
    }

    func add(connection handler: @escaping Namespace.ConnectionHandler) {
        state.withLockedValue { $0.connection.append(handler) }
    }

    func add(serverSide handler: @escaping @Sendable (ServerSideEvent) async -> Void) {
        state.withLockedValue { $0.serverSide.append(handler) }
    }

    var middlewares: [Namespace.Middleware] { state.withLockedValue { $0.middlewares } }
    var connection: [Namespace.ConnectionHandler] { state.withLockedValue { $0.connection } }
    var serverSide: [@Sendable (ServerSideEvent) async -> Void] { state.withLockedValue { $0.serverSide } }
}
