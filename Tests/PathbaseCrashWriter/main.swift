import Foundation
import Pathbase
import PathbaseSQLite

// A child process for the durability tests: writes batches into an SQLite file until it is
// killed, or until it has written a given number of batches.
//
//   PathbaseCrashWriter FILE FIRST_INSTANCE [BATCH_COUNT]
//
// Batch n marks instance n of model 1 created and sets its properties 1...10 to n, all in
// one batch, so after a crash each instance must have all eleven values or none.

let arguments = CommandLine.arguments
guard arguments.count >= 3, let first = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: PathbaseCrashWriter FILE FIRST_INSTANCE [BATCH_COUNT]\n".utf8))
    exit(2)
}
let limit = arguments.count >= 4 ? Int(arguments[3]) : nil

do {
    let database = try SQLiteDatabase(path: arguments[1])
    var instance = first
    while limit.map({ instance < first + $0 }) ?? true {
        try database.batch {
            database.set(InstanceStatus.created, for: Path(model: 1, instance: instance, property: 0))
            for property in 1 ... 10 {
                database.set(instance, for: Path(model: 1, instance: instance, property: property))
            }
        }
        instance += 1
    }
} catch {
    FileHandle.standardError.write(Data("PathbaseCrashWriter: \(error)\n".utf8))
    exit(1)
}
