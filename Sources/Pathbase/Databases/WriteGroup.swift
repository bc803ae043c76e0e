/// Non-throwing writes run as one: in one batch where the database has batches (all stored
/// or none, one commit, one undo step), else as they come. A failed batch goes where a failed
/// `set` goes: to the database's error handler, or, inside a batch, out of that batch.
enum WriteGroup {

    /// Runs `body` as one group of writes on `database` and returns what it returns.
    static func run<Result>(on database: any Database, _ body: () -> Result) -> Result {
        guard let batches = database.batchDatabase else { return body() }
        // Inside a batch of the storage, its writes are already one group: a savepoint per
        // group would only cost (a bulk create in a batch would write row by row).
        let storage = database.storage as? any WriteGroupStorage
        if storage?.isInBatch == true { return body() }
        var result: Result?
        do {
            try batches.batch { result = body() }
        } catch {
            storage?.reportWriteFailure(error)
        }
        // The batch could not begin (another process holds the file): each write then
        // meets the failure and reports it, as outside a batch.
        return result ?? body()
    }
}

/// A database with batches that says whether one is under way, and whose non-throwing
/// writes report failures somewhere (SQLite's error handler): where a failed ``WriteGroup``
/// outside a batch goes.
package protocol WriteGroupStorage: AnyObject {

    /// Whether a batch is under way (on SQLite: on this connection, which then belongs to
    /// the thread running it).
    var isInBatch: Bool { get }

    /// Reports `error` as a failed non-throwing write would be, unless a batch is under way
    /// (which then throws it itself).
    func reportWriteFailure(_ error: any Error)
}

/// Runs the writes of a generated `create(in:id:…)` or `deleteAndClearProperties()` as one
/// group: one batch, one undo step (see `WriteGroup`).
public func _$inOneStep<Result>(_ database: any Database, _ body: () -> Result) -> Result {
    WriteGroup.run(on: database, body)
}
