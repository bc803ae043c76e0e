import Foundation

let usage = """
    usage: pathbase-bench <suite>...
      memory   in-memory databases against a plain [Path: Any] dictionary
      sqlite   SQLiteDatabase against raw SQLite C calls, the in-memory database and a GRDB record
      query    queries run in SQL against closure filters, raw SQLite and re-running a query
      collections  Codable collections against a GRDB Codable record, raw SQL, and themselves at 10^4 rows
    """

let suites = CommandLine.arguments.dropFirst()
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
    default:
        print("unknown suite '\(suite)'\n\(usage)")
        exit(1)
    }
}
