import Foundation
import PostgresNIO

/// Reads `postgres://user[:password]@host[:port]/database` URLs.
///
/// ```swift
/// let configuration = try PostgresURL.configuration(from: "postgres://pathbase@127.0.0.1:5432/pathbase")
/// ```
///
/// `postgresql://` works too. TLS is off: the server is meant for a database on the same
/// machine or a private network.
public enum PostgresURL {

    /// The client configuration a URL names; throws ``PostgresStoreError/invalidURL(_:reason:)``.
    public static func configuration(from url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url) else {
            throw PostgresStoreError.invalidURL(url, reason: "it cannot be parsed")
        }
        guard let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw PostgresStoreError.invalidURL(url, reason: "the scheme must be postgres://")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PostgresStoreError.invalidURL(url, reason: "it names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresStoreError.invalidURL(url, reason: "it names no user")
        }
        let database = String(components.path.dropFirst())
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresStoreError.invalidURL(url, reason: "it must name one database after the host")
        }
        return PostgresClient.Configuration(
            host: host, port: components.port ?? 5432,
            username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: database,
            tls: .disable)
    }
}

extension PostgresURL {

    /// The URL without its password, for logs.
    ///
    /// ```swift
    /// try PostgresURL.redacted("postgres://u:secret@h/db") // "postgres://u@h/db"
    /// ```
    public static func redacted(_ url: String) throws -> String {
        guard var components = URLComponents(string: url) else {
            throw PostgresStoreError.invalidURL(url, reason: "it cannot be parsed")
        }
        components.password = nil
        return components.string ?? url
    }
}
