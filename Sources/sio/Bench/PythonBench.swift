import Foundation
import SocketIO

/// Runs python-socketio's client (Tests/Peers/bench_client.py in the 5.x venv) with the same
/// workload, so the table shows both clients against the same server in the same run.
enum PythonBench {
    /// The interpreter to use: the given one, or `.venv/bin/python` here; `nil` if neither exists.
    static func interpreter(_ given: String?) -> String? {
        if let given { return given }
        let candidate = FileManager.default.currentDirectoryPath + "/.venv/bin/python"
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    /// Runs python-socketio's bench client and waits for it on a thread of its own: never on a
    /// task, whose thread may be an event loop that the embedded server's connections share.
    static func run(python: String, url: URL, events: Int, acks: Int, transport: EngineTransportKind) async throws -> BenchResult {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try runWaiting(python: python, url: url, events: events, acks: acks, transport: transport)
                })
            }
        }
    }

    private static func runWaiting(python: String, url: URL, events: Int, acks: Int, transport: EngineTransportKind) throws -> BenchResult {
        let script = FileManager.default.currentDirectoryPath + "/Tests/Peers/bench_client.py"
        guard FileManager.default.fileExists(atPath: script) else {
            throw BenchError(description: "no \(script): run sio bench from the repository root for the python comparison")
        }
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, url.absoluteString, "--events", "\(events)", "--acks", "\(acks)",
                             "--transport", transport.rawValue]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let before = ProcessUsage.now(children: true)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let value = try? JSONValue(parsing: data),
              let seconds = value["seconds"]?.doubleValue,
              let latencies = value["latencies_ms"]?.arrayValue?.compactMap(\.doubleValue) else {
            throw BenchError(description: "python-socketio's bench client failed (exit \(process.terminationStatus))")
        }
        let usage = ProcessUsage.now(children: true).since(before)
        return BenchResult(target: url.absoluteString, clients: 1,
                           echoes: Throughput(count: events, seconds: seconds), acks: Latencies(milliseconds: latencies),
                           residentMB: nil, usage: usage,
                           usageScope: "the python process, start to exit")
    }
}
