import Foundation
import Logging
import NIOConcurrencyHelpers

/// The last lines the demo's clients logged, kept in memory at trace level and printed only
/// when a step runs out (`sio demo` prints nothing of it otherwise).
enum DemoTrace {
    private static let lines = NIOLockedValueBox<[String]>([])
    private static let capacity = 400

    /// A logger writing into the trace.
    static func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { _ in Handler() }
        logger.logLevel = .trace
        return logger
    }

    /// The lines kept, oldest first.
    static var recent: [String] { lines.withLockedValue { $0 } }

    private struct Handler: LogHandler {
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let line = "\(Date().timeIntervalSince1970) \(event.level) \(event.message) \(fields)"
            DemoTrace.lines.withLockedValue { lines in
                lines.append(line)
                if lines.count > DemoTrace.capacity { lines.removeFirst(lines.count - DemoTrace.capacity) }
            }
        }
    }
}
