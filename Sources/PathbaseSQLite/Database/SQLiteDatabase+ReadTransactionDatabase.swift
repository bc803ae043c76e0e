import Pathbase

/// The async `read { db in … }` of every database runs in one SQLite read transaction.
extension SQLiteDatabase: ReadTransactionDatabase {}
