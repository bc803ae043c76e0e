import Foundation

/// A self-signed certificate for 127.0.0.1 and `localhost` and its key, made by openssl in a
/// new folder: what the TLS tests give `pathbase serve --tls-certificate/--tls-key` and the
/// clients that trust it.
///
/// ```swift
/// let tls = try TestCertificate()
/// defer { tls.remove() }
/// let serve = try ServeProcess(store: ["--database", file, "--tls-certificate", tls.certificate, "--tls-key", tls.key])
/// ```
public struct TestCertificate: Sendable {

    /// Where openssl is installed.
    public static let openssl = "/usr/bin/openssl"

    /// Whether openssl is installed (TLS tests are enabled only then).
    public static var canMake: Bool { FileManager.default.isExecutableFile(atPath: openssl) }

    /// The PEM certificate file.
    public let certificate: String

    /// The PEM private key file.
    public let key: String

    /// Makes a new certificate, valid for two days.
    public init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        certificate = folder.appendingPathComponent("cert.pem").path
        key = folder.appendingPathComponent("key.pem").path
        let made = try ChildProcess.run(
            Self.openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"
            ])
        guard made.status == 0 else { throw TestCertificateError(reason: "openssl exited \(made.status): \(made.errors)") }
    }

    /// Removes the folder of the certificate and key.
    public func remove() {
        try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: certificate).deletingLastPathComponent().path)
    }
}

/// Why openssl made no certificate.
public struct TestCertificateError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
