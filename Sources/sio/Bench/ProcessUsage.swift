import Foundation

/// CPU time and context switches of this process (or of its waited-for children), from
/// `getrusage`: what `sio bench` reports per operation beside throughput and latency.
struct ProcessUsage: Sendable {
    var userSeconds: Double
    var systemSeconds: Double
    /// The process gave up the CPU: it waited (a wake-up later).
    var voluntarySwitches: Int
    /// The kernel took the CPU away (a time slice ran out).
    var involuntarySwitches: Int

    /// This process so far (`RUSAGE_SELF`), or its terminated, waited-for children.
    static func now(children: Bool = false) -> ProcessUsage {
        var usage = rusage()
        #if canImport(Glibc)
        let who = __rusage_who_t(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue)
        #else
        let who = children ? RUSAGE_CHILDREN : RUSAGE_SELF
        #endif
        _ = getrusage(who, &usage)
        return ProcessUsage(
            userSeconds: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
            systemSeconds: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6,
            voluntarySwitches: Int(usage.ru_nvcsw),
            involuntarySwitches: Int(usage.ru_nivcsw)
        )
    }

    /// What happened between `earlier` and this reading.
    func since(_ earlier: ProcessUsage) -> ProcessUsage {
        ProcessUsage(
            userSeconds: userSeconds - earlier.userSeconds,
            systemSeconds: systemSeconds - earlier.systemSeconds,
            voluntarySwitches: voluntarySwitches - earlier.voluntarySwitches,
            involuntarySwitches: involuntarySwitches - earlier.involuntarySwitches
        )
    }

    var cpuSeconds: Double { userSeconds + systemSeconds }
    var contextSwitches: Int { voluntarySwitches + involuntarySwitches }
}
