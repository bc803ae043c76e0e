import GRDBSQLite
import Pathbase

/// Bounded scans, for tools that read a file they must not change (Pathbase Studio): a
/// query on a property without a value index reads every row of the model, and a read-only
/// file cannot get the index. A bounded scan reads one window of the model's rows, in id
/// order, and says where the next window starts, so each call costs the same however large
/// the model is.
extension SQLiteDatabase {

    /// What one window of a bounded scan found.
    package struct ScanWindow: Equatable, Sendable {
        /// The active instances of the window that match, ascending.
        package let matches: [InstanceKey]
        /// Where the next call continues (its `after`): the last match when `limit` cut
        /// the window short, else the window's last instance; `nil` when the scan reached
        /// the model's last instance.
        package let resumeAfter: InstanceKey?
    }

    /// Whether the file has the value index that queries and inverse lookups of (model,
    /// property) start from; without it they scan the model's rows.
    package func hasValueIndex(model: ModelKey, property: PropertyKey) -> Bool {
        locked { () -> Bool in
            guard let connection = try? openHandle(),
                let statement = try? queryStatements.fixed("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?1", connection: connection)
            else { return false }
            defer { statement.reset() }
            statement.bind(Schema.valueIndexName(model: model, property: property), at: 1)
            return (try? statement.hasRow()) ?? false
        }
    }

    /// The active instances matching `predicate` among the next `window` instances of
    /// `model` after `after` (from the first when `nil`), by id, at most `limit` of them;
    /// `nil` when the predicate cannot run in SQL (see ``QuerySQL``). The rows are read
    /// in id order and no value index is used or created.
    package func scanInstances(of model: ModelKey, where predicate: StoredPredicate?, after: InstanceKey?, window: Int, limit: Int) -> ScanWindow? {
        locked { () -> ScanWindow? in
            do throws(SQLiteDatabaseError) {
                let connection = try openHandle()
                let start = after ?? .min
                // The window's last instance: stepping over the rows in the primary key
                // reads no body, a small part of the cost of the scan that follows.
                let end = try queryStatements.fixed(
                    "SELECT instance FROM instance_values WHERE model = ?1 AND instance > ?2 ORDER BY instance LIMIT 1 OFFSET ?3", connection: connection)
                defer { end.reset() }
                end.bind(model, at: 1)
                end.bind(start, at: 2)
                end.bind(max(0, window - 1), at: 3)
                let through: InstanceKey? = try end.hasRow() ? InstanceKey(truncatingIfNeeded: end.int64(at: 0)) : nil
                guard
                    let prepared = try queryStatements.prepared(
                        model: model, predicate: predicate, sort: nil, readingValues: false, inWindow: true, connection: connection)
                else { return nil }
                let statement = prepared.statement
                defer { statement.reset() }
                queryStatements.answered += 1
                let parameters = prepared.query.parameters(predicate: predicate, sort: nil, offset: 0, limit: limit, window: (start, through ?? .max))
                for (offset, parameter) in parameters.enumerated() {
                    statement.bind(parameter, at: Int32(offset + 1))
                }
                var matches: [InstanceKey] = []
                while true {
                    switch statement.step() {
                    case SQLITE_ROW:
                        matches.append(InstanceKey(truncatingIfNeeded: statement.int64(at: 0)))
                    case SQLITE_DONE:
                        let resume = matches.count >= limit ? matches.last : through
                        return ScanWindow(matches: matches, resumeAfter: resume)
                    case let code: throw error(code)
                    }
                }
            } catch {
                report(error)
                return nil
            }
        }
    }
}
