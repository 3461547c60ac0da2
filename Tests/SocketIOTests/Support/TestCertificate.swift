import Foundation
import SwitchboardTestSupport
import Testing

/// A self-signed certificate for `localhost` and 127.0.0.1, made by `openssl` in a fresh
/// temporary folder that ``remove()`` deletes.
struct TestCertificate {
    let directory: URL
    let certificatePath: String
    let keyPath: String

    /// Makes one (openssl's key generation takes a moment: waited for without holding a thread
    /// of the cooperative pool, which the rest of the suite needs meanwhile).
    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificatePath = directory.appendingPathComponent("cert.pem").path
        keyPath = directory.appendingPathComponent("key.pem").path
        let (keyPath, certificatePath) = (keyPath, certificatePath)
        let made = try await withTimeout(60, "openssl makes the certificate") {
            try await ChildProcess.run("/usr/bin/env", [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                "-keyout", keyPath, "-out", certificatePath, "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
        }
        #expect(made.status == 0, "openssl made the certificate: \(made.stderr)")
    }

    /// The python peer's arguments to serve `https` with this certificate.
    var serverArguments: [String] { ["--certfile", certificatePath, "--keyfile", keyPath] }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
