import Foundation
import Pathbase
import PathbaseSQLite

// A child process for the durability tests: writes batches into an SQLite file until it is
// killed, or until it has written a given number of batches.
//
//   PathbaseCrashWriter FILE FIRST_INSTANCE [BATCH_COUNT] [batch|context]
//
// Batch n marks instance n of model 1 created and sets its properties 1...10 to n, all in
// one batch (or, with `context`, in an editing context committed at once), so after a
// crash each instance must have all eleven values or none.
//
// After each commit returns, the writer reports the batch: it writes "n\n" to standard
// output with one unbuffered write, so the line reaches the parent even if the writer is
// killed right after. Every reported batch must be in the file after the crash.

let arguments = CommandLine.arguments
guard arguments.count >= 3, let first = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: PathbaseCrashWriter FILE FIRST_INSTANCE [BATCH_COUNT] [batch|context]\n".utf8))
    exit(2)
}
let limit = arguments.count >= 4 ? Int(arguments[3]) : nil
let usesContexts = arguments.count >= 5 && arguments[4] == "context"

do {
    let database = try SQLiteDatabase(path: arguments[1])
    var instance = first
    while limit.map({ instance < first + $0 }) ?? true {
        func write(into target: any Database) {
            target.set(InstanceStatus.created, for: Path(model: 1, instance: instance, property: 0))
            for property in 1 ... 10 {
                target.set(instance, for: Path(model: 1, instance: instance, property: property))
            }
        }
        if usesContexts {
            let context = database.createEditingContext()
            write(into: context)
            try context.commitChanges(onConflict: .newestWins)
        } else {
            try database.batch { write(into: database) }
        }
        try FileHandle.standardOutput.write(contentsOf: Data("\(instance)\n".utf8))
        instance += 1
    }
} catch {
    FileHandle.standardError.write(Data("PathbaseCrashWriter: \(error)\n".utf8))
    exit(1)
}
