import ArgumentParser
import Foundation
import Harness

/// `sio soak`: the demo's scenes and the client/server scenarios in a loop, each with a deadline.
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Run the demo and client/server scenarios in a loop; report hangs and failures.",
        discussion: """
        Each iteration runs every scenario (the demo's scenes, echo and acks over WebSocket and \
        polling, emit-then-close over both, and with --faults acks through a fault proxy that cuts \
        and stalls connections). A scenario that misses its deadline is a hang: the command prints \
        which steps were waiting, and the state of every manager, socket and server, and exits 2. \
        A failed scenario is counted and the loop goes on; any failure exits 1.
        """
    )

    @Option(name: .long, help: "How many iterations.")
    var iterations = 200

    @Flag(name: .long, help: "Run a busy thread on every core meanwhile.")
    var hog = false

    @Flag(name: .long, help: "Also inject faults: delays, and cuts and a stall through a fault proxy.")
    var faults = false

    @Option(name: .long, help: "Seconds each scenario may take before it counts as a hang (default 60).", transform: Seconds.parsePositive)
    var deadline: Duration = .seconds(60)

    func run() async throws {
        guard iterations > 0 else { throw ValidationError("--iterations must be at least 1") }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let hogs = hog ? CPUHog(threads: cores) : nil
        defer { hogs?.stop() }
        let scenarios = SoakScenarios.all(faults: faults)
        StandardOutput.line("sio soak: \(iterations) iterations × \(scenarios.count) scenarios, "
            + "CPU hog \(hog ? "on (\(cores) threads)" : "off"), faults \(faults ? "on" : "off"), deadline \(SoakReport.seconds(deadline)) s")
        let started = ContinuousClock.now
        var failures = 0
        var cuts = 0
        for iteration in 1...iterations {
            let iterationStarted = ContinuousClock.now
            var failed: [String] = []
            for scenario in scenarios {
                do {
                    cuts += try await withDeadline(deadline, onDeadline: { SoakHang(scenario: scenario.name) }) {
                        try await scenario.run()
                    }
                } catch is SoakHang {
                    for line in SoakReport.hang(iteration: iteration, scenario: scenario.name, deadline: deadline) {
                        StandardOutput.line(line)
                    }
                    StandardOutput.line("soak: \(iteration - 1) iterations passed before the hang; hangs: 1, failures: \(failures)")
                    throw ExitCode(2)
                } catch {
                    failures += 1
                    failed.append("\(scenario.name): \(error)")
                }
            }
            let took = SoakReport.seconds(ContinuousClock.now - iterationStarted)
            StandardOutput.line("iteration \(iteration)/\(iterations): " + (failed.isEmpty ? "ok" : "FAILED") + " (\(took) s)")
            for failure in failed { StandardOutput.line("  ✘ " + failure) }
        }
        StandardOutput.line("soak: \(iterations) iterations in \(SoakReport.seconds(ContinuousClock.now - started)) s; "
            + "hangs: 0, failures: \(failures)" + (faults ? ", connections cut: \(cuts)" : ""))
        if failures > 0 { throw ExitCode(1) }
    }
}
