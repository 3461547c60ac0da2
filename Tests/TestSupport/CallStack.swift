/// The depth of the calling thread's stack, in frames: a handler called through a chain of
/// thunks that grows with every call sits deeper each time, which a test can see without
/// timing anything.
public enum CallStack {
    /// Frames on the stack of the caller (at most 65,536 counted).
    public static func depth() -> Int {
        let capacity: Int32 = 65_536
        let buffer = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: Int(capacity))
        defer { buffer.deallocate() }
        return Int(systemBacktrace(buffer, capacity))
    }
}

/// glibc's and Darwin's `backtrace(3)` (execinfo.h, which no Swift module exports on Linux).
@_silgen_name("backtrace")
private func systemBacktrace(_ buffer: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ size: Int32) -> Int32
