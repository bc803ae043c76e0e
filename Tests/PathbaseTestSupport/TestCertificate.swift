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

    /// Makes a new self-signed certificate for `names` (a subjectAltName list), valid for
    /// two days, or, when `expired`, one that was valid for a day in January 2020.
    public init(names: String = "IP:127.0.0.1,DNS:localhost", expired: Bool = false) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        certificate = folder.appendingPathComponent("cert.pem").path
        key = folder.appendingPathComponent("key.pem").path
        let subject = ["-subj", "/CN=pathbase test", "-addext", "subjectAltName=\(names)"]
        guard expired else {
            try Self.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2"] + subject)
            return
        }
        // `openssl req` cannot date a certificate in the past; `openssl ca` can, with a
        // database of its own and the request's names copied.
        let request = folder.appendingPathComponent("request.csr").path
        let configuration = folder.appendingPathComponent("ca.cnf").path
        try Data().write(to: folder.appendingPathComponent("index.txt"))
        try Data("01\n".utf8).write(to: folder.appendingPathComponent("serial"))
        try Data(
            """
            [ ca ]
            default_ca = expired
            [ expired ]
            database = \(folder.path)/index.txt
            new_certs_dir = \(folder.path)
            serial = \(folder.path)/serial
            default_md = sha256
            policy = any
            copy_extensions = copy
            unique_subject = no
            [ any ]
            commonName = supplied

            """.utf8
        ).write(to: URL(fileURLWithPath: configuration))
        try Self.openssl(["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request] + subject)
        try Self.openssl([
            "ca", "-batch", "-notext", "-config", configuration, "-selfsign", "-keyfile", key, "-in", request, "-out", certificate,
            "-startdate", "20200101000000Z", "-enddate", "20200102000000Z"
        ])
    }

    private static func openssl(_ arguments: [String]) throws {
        let made = try ChildProcess.run(openssl, arguments)
        guard made.status == 0 else { throw TestCertificateError(reason: "openssl \(arguments.first ?? "") exited \(made.status): \(made.errors)") }
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
