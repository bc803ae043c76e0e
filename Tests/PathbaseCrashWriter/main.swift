import Foundation
import Pathbase
import PathbaseSQLite

// A child process for the durability tests: writes batches into an SQLite file until it is
// killed, or until it has written a given number of batches.
//
//   PathbaseCrashWriter FILE FIRST_INSTANCE [BATCH_COUNT] [batch|context|limit:BYTES]
//
// Batch n marks instance n of model 1 created and sets its properties 1...10 to n, all in
// one batch (or, with `context`, in an editing context committed at once), so after a
// crash each instance must have all eleven values or none.
//
// After each commit returns, the writer reports the batch: it writes "n\n" to standard
// output with one unbuffered write, so the line reaches the parent even if the writer is
// killed right after. Every reported batch must be in the file after the crash.
//
// With `limit:BYTES` the process may not write files beyond BYTES (`RLIMIT_FSIZE`, as a full
// disk): it writes batches until one fails, writes "failed n" for it, checks that every
// reported batch still reads back, and exits 0.

let arguments = CommandLine.arguments
guard arguments.count >= 3, let first = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: PathbaseCrashWriter FILE FIRST_INSTANCE [BATCH_COUNT] [batch|context|limit:BYTES]\n".utf8))
    exit(2)
}
let limit = arguments.count >= 4 ? Int(arguments[3]) : nil
let mode = arguments.count >= 5 ? arguments[4] : "batch"
let usesContexts = mode == "context"
let fileLimit = mode.hasPrefix("limit:") ? Int(mode.dropFirst("limit:".count)) : nil

/// Makes writes past `bytes` fail (with EFBIG), as on a full disk.
func limitFileSize(to bytes: Int) {
    signal(SIGXFSZ, SIG_IGN)
    var limit = rlimit()
    getrlimit(resourceFileSize, &limit)
    limit.rlim_cur = rlim_t(bytes)
    setrlimit(resourceFileSize, &limit)
}
#if canImport(Glibc)
    let resourceFileSize = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
#else
    let resourceFileSize = RLIMIT_FSIZE
#endif

do {
    let database = try SQLiteDatabase(path: arguments[1], options: SQLiteDatabase.Options(errorHandler: { _ in }))
    if let fileLimit { limitFileSize(to: fileLimit) }
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
        } else if fileLimit != nil {
            do {
                try database.batch { write(into: database) }
            } catch {
                try FileHandle.standardOutput.write(contentsOf: Data("failed \(instance)\n".utf8))
                for written in first ..< instance {
                    let values = (1 ... 10).map { database.get(Path(model: 1, instance: written, property: $0)) as Int? }
                    guard values.allSatisfy({ $0 == written }) else {
                        FileHandle.standardError.write(Data("PathbaseCrashWriter: batch \(written) reads \(values) after the failure\n".utf8))
                        exit(1)
                    }
                }
                exit(0)
            }
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
