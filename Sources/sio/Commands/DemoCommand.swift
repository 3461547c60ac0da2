import ArgumentParser
import Foundation
import Logging
import SocketIO
import SocketIOServer

/// `sio demo`: the embedded server and a client, every feature in one short story.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the embedded server on a free port and show the client working against it."
    )

    @Flag(name: .long, help: "Log the server's connections to standard error.")
    var verbose = false

    @Option(name: .long, help: "Play one part only: client (Socket.IO client scenes), platform, or failover.")
    var only: DemoPart?

    /// The demo's parts, in the order they play.
    enum DemoPart: String, ExpressibleByArgument, CaseIterable {
        case client, platform, failover
    }

    func run() async throws {
        let story = DemoStory()
        var logger = Logger(label: "sio.demo") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .info : .critical
        let host = DemoServerHost(logger: logger)
        let url: URL
        do {
            url = try await host.start()
        } catch {
            story.failure("the embedded server did not start: \(error)")
            throw ExitCode(1)
        }
        story.banner("Switchboard demo — embedded Socket.IO server at \(url.absoluteString)")
        do {
            let parts = only.map { [$0] } ?? DemoPart.allCases
            for part in parts {
                switch part {
                case .client: try await DemoScenes(story: story, url: url, host: host).play()
                case .platform: try await PlatformScene(story: story).play()
                case .failover: try await FailoverScene(story: story).play()
                }
            }
            story.banner("\nAll done: every step above ran against a real server over loopback.")
            await host.stop()
        } catch {
            story.failure("\(error)")
            // What was waiting on what, for whoever reads the failure (a step that ran out).
            if error is DemoFailure {
                for line in SoakReport.waitingOn() { StandardOutput.errorLine("    \(line)") }
                if verbose {
                    for line in DemoTrace.recent { StandardOutput.errorLine("    trace: \(line)") }
                }
            }
            await host.stop()
            throw ExitCode(1)
        }
    }
}
