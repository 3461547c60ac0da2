import NIOConcurrencyHelpers

/// The server's namespaces by name.
final class NamespaceRegistry: Sendable {
    private let namespaces = NIOLockedValueBox<[String: Namespace]>([:])
    private let environment: ServerEnvironment

    init(environment: ServerEnvironment) {
        self.environment = environment
    }

    /// The namespace called `name`, made on first use.
    func namespace(_ name: String) -> Namespace {
        let name = Self.normalize(name)
        return namespaces.withLockedValue { namespaces in
            if let existing = namespaces[name] { return existing }
            let namespace = Namespace(name: name, environment: environment)
            namespaces[name] = namespace
            return namespace
        }
    }

    /// The namespace called `name`, if the app made it.
    subscript(name: String) -> Namespace? {
        namespaces.withLockedValue { $0[name] }
    }

    var all: [Namespace] { namespaces.withLockedValue { Array($0.values) } }

    /// `chat` → `/chat`; `/chat?x=1` → `/chat` (a v4-protocol client's query).
    static func normalize(_ name: String) -> String {
        var name = name
        if let query = name.firstIndex(of: "?") { name = String(name[..<query]) }
        return name.hasPrefix("/") ? name : "/" + name
    }
}
