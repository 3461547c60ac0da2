import Foundation

/// Where the built `sio` executable (or another executable of the package, such as an example)
/// is, for the tests that run it as a user would.
///
/// In order: `$SIO_BINARY`; the directory holding the test bundle (SwiftPM puts products and the
/// test bundle in the same directory, e.g. `.build/debug/`, and `swift build --build-tests` or
/// `swift test` build `sio` along with the tests); `<package root>/.build/debug/sio`. When none
/// exists the tests print why they are skipped and return.
enum SioBinary {
    /// The executable, or nil with the places looked at.
    static func locate(_ name: String = "sio") -> (path: String?, looked: [String]) {
        var candidates: [String] = []
        if name == "sio", let configured = ProcessInfo.processInfo.environment["SIO_BINARY"], !configured.isEmpty {
            candidates.append(configured)
        }
        for bundle in [Bundle.main.executableURL, Bundle(for: BundleMarker.self).bundleURL, Bundle.main.bundleURL] {
            guard let bundle else { continue }
            candidates.append(bundle.deletingLastPathComponent().appendingPathComponent(name).path)
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/\(name)").path)
        var looked: [String] = []
        for candidate in candidates where !looked.contains(candidate) {
            looked.append(candidate)
            if FileManager.default.isExecutableFile(atPath: candidate) { return (candidate, looked) }
        }
        return (nil, looked)
    }

    /// The binary, or nil after printing a loud skip line naming `test`.
    static func orSkip(_ test: String, _ name: String = "sio") -> String? {
        let (path, looked) = locate(name)
        if let path { return path }
        let line = "⚠️ SKIPPED \(test): no \(name) binary; run `swift build` first or set SIO_BINARY (looked at \(looked.joined(separator: ", ")))\n"
        FileHandle.standardError.write(Data(line.utf8))
        return nil
    }

    /// Tests/SioTests/Support/SioBinary.swift → the package root.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

private final class BundleMarker {}
