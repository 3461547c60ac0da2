#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOConcurrencyHelpers

/// The process's file descriptors, shared by every server and client in it: a connection is
/// opened (or an accepted one kept) only while a reserve stays free below the soft
/// `RLIMIT_NOFILE`, so a flood of connections is refused cleanly instead of taking the process
/// down. (A process with no descriptor left crashes in places nobody can handle: libdispatch
/// traps when it cannot open `/proc`, and logging, DNS and TLS files fail.)
///
/// Cheap on the common path: it counts the connections it granted on top of what was open when
/// it last looked, and counts the process's open descriptors for real (`/proc/self/fd`) only
/// when that estimate comes near the limit.
package final class DescriptorBudget: Sendable {
    /// The one budget of the process.
    package static let shared = DescriptorBudget()

    /// The soft limit on open descriptors (`ulimit -n`); `nil` when unlimited or unknown.
    package let limit: Int?
    /// Descriptors kept free for everything but connections.
    package let reserve: Int
    private let count: @Sendable () -> Int?

    private struct State {
        /// Connections granted and not yet released.
        var held = 0
        /// Descriptors open besides them, when last counted.
        var others: Int
        /// Whether the last decision was a refusal (so the first refusal of a run is reported once).
        var refusing = false

        mutating func grant() -> Decision {
            held += 1
            defer { refusing = false }
            return .granted(resumed: refusing)
        }
    }

    private let state: NIOLockedValueBox<State>

    /// A budget for `limit` descriptors (by default the process's soft limit) keeping `reserve`
    /// free (by default a twentieth of the limit, between 32 and 256); `count` counts the open
    /// ones (by default `/proc/self/fd` where it exists).
    package init(limit: Int? = DescriptorBudget.softLimit(), reserve: Int? = nil, count: @escaping @Sendable () -> Int? = DescriptorBudget.openDescriptors) {
        self.limit = limit
        self.reserve = reserve ?? limit.map { min(max($0 / 20, 32), 256) } ?? 0
        self.count = count
        state = NIOLockedValueBox(State(others: count() ?? 0))
    }

    /// A decision on one connection.
    package enum Decision: Sendable, Hashable {
        /// Go ahead; ``release()`` once the connection's descriptor is closed. `resumed` when
        /// connections were being refused until now.
        case granted(resumed: Bool)
        /// No room: `open` of `limit` descriptors are open. `first` for the first refusal after
        /// a grant (report it once, not once per connection).
        case refused(open: Int, limit: Int, first: Bool)
    }

    /// Takes room for one connection's descriptor (already open, for an accepted connection).
    package func acquire() -> Decision {
        guard let limit else { return .granted(resumed: false) }
        let ceiling = limit - reserve
        // Far from the ceiling by the estimate: granted without counting.
        let fast = state.withLockedValue { state -> Decision? in
            guard !state.refusing, state.others + state.held + 1 + reserve <= ceiling else { return nil }
            return state.grant()
        }
        if let fast { return fast }
        // Near it: count for real (outside the lock), then decide.
        let open = count()
        return state.withLockedValue { state in
            if let open { state.others = max(0, open - state.held) }
            let total = state.others + state.held
            // Refusing, it resumes only well below the ceiling, so a flood at the edge does not
            // flap between refusing and accepting with every connection that closes.
            let resumeBelow = state.refusing ? ceiling - max(reserve / 2, 1) : ceiling
            guard total + 1 <= resumeBelow else {
                defer { state.refusing = true }
                return .refused(open: total, limit: limit, first: !state.refusing)
            }
            return state.grant()
        }
    }

    /// Gives back what one ``acquire()`` granted.
    package func release() {
        state.withLockedValue { $0.held = max(0, $0.held - 1) }
    }

    /// How many connections fit now besides those open, keeping the reserve; `nil` when unlimited.
    package var room: Int? {
        guard let limit else { return nil }
        let open = count() ?? state.withLockedValue { $0.others + $0.held }
        return max(0, limit - reserve - open)
    }

    /// The soft `RLIMIT_NOFILE`, or `nil` when it is unlimited or cannot be read.
    package static func softLimit() -> Int? {
        var limits = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        let unlimited = rlim_t.max  // RLIM_INFINITY, which Swift cannot import from glibc
        #else
        let resource = RLIMIT_NOFILE
        let unlimited = RLIM_INFINITY
        #endif
        guard getrlimit(resource, &limits) == 0, limits.rlim_cur != unlimited else { return nil }
        return Int(clamping: limits.rlim_cur)
    }

    /// The descriptors open in this process, counted in `/proc/self/fd`; `nil` where there is
    /// none (Apple platforms: the estimate stands alone there). When the directory itself cannot
    /// be opened for lack of a descriptor, every descriptor is taken: the limit is returned.
    package static func openDescriptors() -> Int? {
        #if os(Linux)
        guard let directory = opendir("/proc/self/fd") else {
            return errno == EMFILE || errno == ENFILE ? softLimit() : nil
        }
        defer { closedir(directory) }
        var entries = 0
        while let entry = readdir(directory) {
            if UInt8(bitPattern: entry.pointee.d_name.0) != UInt8(ascii: ".") { entries += 1 }
        }
        return max(0, entries - 1)  // the directory's own descriptor
        #else
        return nil
        #endif
    }
}
