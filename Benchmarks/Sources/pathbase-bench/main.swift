import Foundation

let usage = """
    usage: pathbase-bench <suite>... [--smoke] [--postgres URL]
      memory   in-memory databases against a plain [Path: Any] dictionary
      sqlite   SQLiteDatabase against raw SQLite C calls, the in-memory database and a GRDB record
      objects  only the object lines of sqlite (issue 18), for quick and profiling runs
      query    queries run in SQL against closure filters, raw SQLite and re-running a query
      collections  Codable collections against a GRDB Codable record, raw SQL, and themselves at 10^4 rows
      sync     push, pull and a 10^6-record initial sync against a `pathbase serve` process (built next to this one)
      live     1000 idle live WebSocket connections to a `pathbase serve` process: its memory, and how fast a push is heard
      studio   p50/p99 of each kind of page of a `pathbase studio` process (built next to this one) on a 10^6-instance file
      --smoke  tiny counts and one round: proves the lines run (CI), figures mean nothing
      --postgres URL  sync: also two `pathbase serve` processes on this PostgreSQL database (postgres://user@host:port/database)
    """

var arguments = Array(CommandLine.arguments.dropFirst())
var postgres: String?
if let index = arguments.firstIndex(of: "--postgres") {
    guard index + 1 < arguments.count else {
        print("--postgres needs a URL\n\(usage)")
        exit(1)
    }
    postgres = arguments[index + 1]
    arguments.removeSubrange(index ... index + 1)
}
let suites = arguments.filter { $0 != "--smoke" }
if suites.isEmpty {
    print(usage)
    exit(1)
}
for suite in suites {
    switch suite {
    case "memory":
        MemoryBenchmark.run()
    case "sqlite":
        do {
            try SQLiteBenchmark.run()
        } catch {
            print("sqlite benchmark failed: \(error)")
            exit(1)
        }
    case "objects":
        do {
            try FileManager.default.createDirectory(at: SQLiteBenchmark.directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: SQLiteBenchmark.directory) }
            try ObjectBenchmark.run()
        } catch {
            print("objects benchmark failed: \(error)")
            exit(1)
        }
    case "query":
        do {
            try QueryBenchmark.run()
        } catch {
            print("query benchmark failed: \(error)")
            exit(1)
        }
    case "collections":
        do {
            try CollectionBenchmark.run()
        } catch {
            print("collections benchmark failed: \(error)")
            exit(1)
        }
    case "sync":
        do {
            try await SyncBenchmark.run(postgres: postgres)
        } catch {
            print("sync benchmark failed: \(error.localizedDescription)")
            exit(1)
        }
    case "studio":
        do {
            try await StudioBenchmark.run()
        } catch {
            print("studio benchmark failed: \(error)")
            exit(1)
        }
    case "live":
        do {
            try await LiveBenchmark.run()
        } catch {
            print("live benchmark failed: \(error.localizedDescription)")
            exit(1)
        }
    default:
        print("unknown suite '\(suite)'\n\(usage)")
        exit(1)
    }
}
