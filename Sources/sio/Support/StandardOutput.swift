import Foundation
import NIOConcurrencyHelpers

/// Every write `sio` makes to standard output and to standard error goes through here.
///
/// Writes are whole (a line written from two threads never interleaves) and unbuffered, so a
/// pipe sees each line as it happens. When the reader of the pipe has gone (`sio listen | head -1`
/// once `head` exits), the process ends at once and quietly, the way Unix tools do: it dies of
/// `SIGPIPE` (a shell reports status 141). SwiftNIO ignores `SIGPIPE` for the whole process (its
/// sockets need that), so `write` reports `EPIPE` instead, and Foundation's `FileHandle.write`
/// would turn that into a crash with a backtrace (on standard error too: `sio emit URL ev 2>&1
/// >/dev/null | true` crashed on its error line).
enum StandardOutput {
    private static let lock = NIOLock()

    /// Writes `text` and a newline.
    static func line(_ text: String) {
        write(text + "\n")
    }

    /// Writes `text` and a newline to standard error.
    static func errorLine(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    /// Writes `text` as it is, to standard output or to `descriptor`.
    static func write(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
        var text = text
        lock.withLock {
            text.withUTF8 { bytes in
                guard let base = bytes.baseAddress else { return }
                var offset = 0
                while offset < bytes.count {
                    let written = Foundation.write(descriptor, base + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else if written < 0, errno == EPIPE {
                        readerWentAway()
                    } else {
                        return  // the output is unusable (closed, full disk): nothing sensible left to do
                    }
                }
            }
        }
    }

    /// Ends the process as `SIGPIPE`'s default action would have.
    private static func readerWentAway() -> Never {
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)  // not reached: the default action of SIGPIPE terminates
    }
}
