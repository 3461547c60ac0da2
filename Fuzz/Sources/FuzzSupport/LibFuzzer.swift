import CLibFuzzer
import Foundation

/// Runs libFuzzer with `testOneInput` as the target and exits with its status (see
/// `Package.swift` for why the targets call this rather than relying on libFuzzer's `main`).
public func runLibFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}

/// Stops the run with a crash libFuzzer reports (and saves the input of) when an invariant
/// that must hold for every input does not.
public func invariant(
    _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line
) {
    if !condition { fatalError("invariant broken: \(message())", file: file, line: line) }
}
