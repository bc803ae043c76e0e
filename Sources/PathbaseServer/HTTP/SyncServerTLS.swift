import Foundation
import HummingbirdTLS
import NIOSSL

/// The certificate and private key `pathbase serve` answers HTTPS and WSS with.
///
/// ```swift
/// let tls = SyncServerTLS(certificateFile: "/etc/pathbase/cert.pem", keyFile: "/etc/pathbase/key.pem")
/// let http = SyncHTTPServer(server: server, host: "0.0.0.0", port: 443, tls: tls)
/// ```
///
/// Both files are PEM: the certificate file may hold the chain (the server's certificate
/// first, then the intermediates), the key file the certificate's private key.
public struct SyncServerTLS: Sendable, Hashable {

    /// The PEM file of the certificate chain.
    public var certificateFile: String

    /// The PEM file of the private key.
    public var keyFile: String

    /// TLS from two PEM files.
    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    /// The server configuration of NIOSSL; throws ``SyncServerTLSError``, naming the file
    /// and what is wrong with it, when a file does not exist, cannot be read, is not PEM,
    /// or when the key is not the certificate's.
    func configuration() throws -> TLSConfiguration {
        for (file, kind) in [(certificateFile, "certificate"), (keyFile, "private key")] {
            guard FileManager.default.fileExists(atPath: file) else { throw SyncServerTLSError(file: file, problem: "does not exist (the \(kind) file)") }
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw SyncServerTLSError(file: file, problem: "cannot be read by this process (the \(kind) file: check its permissions)")
            }
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw SyncServerTLSError(file: certificateFile, problem: "is not a PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw SyncServerTLSError(file: certificateFile, problem: "holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw SyncServerTLSError(file: keyFile, problem: "is not a PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        // NIOSSL checks the key against the certificate when it makes a context, at the first
        // connection, where it says only failedToLoadPrivateKey: make one now, so that a key
        // of another certificate is refused at start with both files named.
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw SyncServerTLSError(
                file: keyFile, problem: "is not the private key of the certificate in \(certificateFile): the two do not match (\(error)); give the key the certificate was made with")
        }
        return configuration
    }
}

/// A TLS file `pathbase serve` could not use.
public struct SyncServerTLSError: Error, LocalizedError, Sendable {

    /// The file.
    public var file: String

    /// What is wrong with it.
    public var problem: String

    public var errorDescription: String? { "The TLS file \(file) \(problem)" }
}
