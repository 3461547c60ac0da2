import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the session loop reacts to, in the order it happened.
enum SessionInput: Sendable {
    /// Bytes from the terminal in raw mode (keys, possibly split mid-sequence).
    case bytes([UInt8])
    /// A line from standard input when it is not a terminal (a script or a pipe).
    case line(String)
    /// Standard input ended.
    case endOfInput
    /// The command that was running (an `ack` or a `connect`) finished.
    case commandFinished
}

/// Reads standard input on a thread of its own (reads block) and feeds the session loop.
enum InputReader {
    /// Raw bytes, for the line editor.
    static func readBytes(into continuation: AsyncStream<SessionInput>.Continuation) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count > 0 {
                    continuation.yield(.bytes(Array(buffer[..<count])))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    continuation.yield(.endOfInput)  // end of file, or the terminal went away
                    return
                }
            }
        }
    }

    /// Whole lines, for scripts: `printf 'emit echo "hi"\nquit\n' | sio connect URL`.
    static func readLines(into continuation: AsyncStream<SessionInput>.Continuation) {
        Thread.detachNewThread {
            while let line = readLine(strippingNewline: true) {
                continuation.yield(.line(line))
            }
            continuation.yield(.endOfInput)
        }
    }
}
