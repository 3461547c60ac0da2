package import Logging

extension Logger {
    /// A logger that writes nothing: the default of every component that takes a logger.
    package static func disabled(_ label: String) -> Logger {
        Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
    }
}
