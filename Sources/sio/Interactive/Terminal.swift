import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal `sio connect` draws its prompt on: raw mode in and out, and its width.
///
/// Raw mode turns off the terminal's own line editing and echo (the line editor does both) and
/// signal keys (ctrl-C and ctrl-Z arrive as bytes; ctrl-C drops the line). Output processing
/// stays on, so `\n` still starts a new row. The original settings come back on ``restore()``,
/// at exit, and on SIGTERM, SIGHUP, SIGINT and SIGQUIT from elsewhere (the handler restores them
/// and re-raises, so the process still dies of the signal).
enum Terminal {
    /// Whether the line editor can be used: standard input and output are both terminals.
    static var isInteractive: Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    }

    /// The terminal's width in columns (80 when it cannot be asked).
    static var columns: Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Calls `handler` when the terminal is resized (the prompt line is drawn for the old width).
    static func onResize(_ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        _ = signal(SIGWINCH, SIG_IGN)  // dispatch sees it; the default action would too, but be sure
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }

    /// Puts standard input in raw mode; false when it is not a terminal.
    static func enableRawMode() -> Bool {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return false }
        savedSettings = original
        hasSavedSettings = true
        for signal in [SIGTERM, SIGHUP, SIGINT, SIGQUIT] { installHandler(signal) }
        atexit { Terminal.restore() }

        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1  // read returns as soon as one byte is there
            cc[Int(VTIME)] = 0
        }
        return tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0
    }

    /// Puts the original settings back (safe to call more than once, and from a signal handler).
    static func restore() {
        guard hasSavedSettings else { return }
        var original = savedSettings
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    private static func installHandler(_ signal: Int32) {
        #if canImport(Darwin)
        _ = Darwin.signal(signal) { received in Terminal.restoreAndReraise(received) }
        #elseif canImport(Musl)
        _ = Musl.signal(signal) { received in Terminal.restoreAndReraise(received) }
        #else
        _ = Glibc.signal(signal) { received in Terminal.restoreAndReraise(received) }
        #endif
    }

    /// Only async-signal-safe calls: tcsetattr, write, signal, raise. `errno` is put back as it
    /// was, since the handler may interrupt code that is about to read it.
    private static func restoreAndReraise(_ signal: Int32) {
        let savedErrno = errno
        defer { errno = savedErrno }
        restore()
        _ = "\r\n".withCString { write(STDOUT_FILENO, $0, 2) }
        #if canImport(Darwin)
        _ = Darwin.signal(signal, SIG_DFL)
        #elseif canImport(Musl)
        _ = Musl.signal(signal, SIG_DFL)
        #else
        _ = Glibc.signal(signal, SIG_DFL)
        #endif
        raise(signal)
    }
}

// Written once before the handlers are installed and only read afterwards, including from
// signal handlers, which is why these are plain globals rather than anything with a lock.
nonisolated(unsafe) private var savedSettings = termios()
nonisolated(unsafe) private var hasSavedSettings = false
