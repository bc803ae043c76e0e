import Foundation
import PathbaseServer
import PostgresNIO

/// Why a ``PostgresSyncServerStore`` could not open.
///
/// ```swift
/// do {
///     _ = try await PostgresSyncServerStore(url: "postgres://pathbase@127.0.0.1:1/pathbase")
/// } catch let error as PostgresStoreError {
///     print(error.localizedDescription) // PostgreSQL cannot be reached: …
/// }
/// ```
///
/// Failures of a store that is open are `SyncServerError.storageFailed(_:)`, like every
/// store's.
public enum PostgresStoreError: Error, Hashable, Sendable, LocalizedError {

    /// The URL is not `postgres://user[:password]@host[:port]/database`.
    case invalidURL(String, reason: String)

    /// No PostgreSQL server answered, or it refused the connection.
    case unreachable(String)

    /// The database's schema is newer than this program: it was migrated by a newer server.
    case newerSchema(found: Int, known: Int)

    /// PostgreSQL refused a statement.
    case failed(String)

    public var errorDescription: String? {
        switch self {
        case .invalidURL(let url, let reason): "'\(url)' is not a PostgreSQL URL (postgres://user[:password]@host[:port]/database): \(reason)"
        case .unreachable(let reason): "PostgreSQL cannot be reached: \(reason)"
        case .newerSchema(let found, let known): "The PostgreSQL store has schema version \(found), newer than this server's \(known); run a newer pathbase"
        case .failed(let reason): "PostgreSQL failed: \(reason)"
        }
    }

    /// A store error for any error of postgres-nio; our own errors pass through.
    static func wrapping(_ error: any Error) -> any Error {
        switch error {
        case let error as PostgresStoreError: error
        case let error as SyncServerError: error
        case let error as PostgresTransactionError:
            // The closure's own error (an unknown account, a newer schema) is the one to tell.
            error.closureError.map(wrapping) ?? PostgresStoreError.failed(describe(error.commitError ?? error.beginError ?? error))
        case let error as PSQLError where error.serverInfo == nil:
            PostgresStoreError.unreachable(describe(error))
        case let error as PSQLError where isUnavailable(sqlState: error.serverInfo?[.sqlState]):
            PostgresStoreError.unreachable(describe(error))
        default:
            PostgresStoreError.failed(describe(error))
        }
    }

    /// A store error for an open store: `SyncServerError` as every store throws.
    static func syncServerError(_ error: any Error) -> any Error {
        switch wrapping(error) {
        case let error as SyncServerError: error
        case let error as PostgresStoreError where error.isUnavailable: SyncServerError.storageUnavailable(error.localizedDescription)
        case let error as PostgresStoreError: SyncServerError.storageFailed(error.localizedDescription)
        case let other: SyncServerError.storageFailed(String(describing: other))
        }
    }

    /// Whether retrying later may succeed: PostgreSQL could not be reached.
    var isUnavailable: Bool {
        if case .unreachable = self { return true }
        return false
    }

    /// SQLSTATE classes 08 (connection exception) and 57 (operator intervention: the server
    /// shuts down or restarts) mean the database is away, not that the statement is wrong.
    private static func isUnavailable(sqlState: String?) -> Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("57")
    }

    /// PostgreSQL's own message when it sent one; postgres-nio's descriptions hide it.
    private static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
        }
        return String(describing: error)
    }
}
