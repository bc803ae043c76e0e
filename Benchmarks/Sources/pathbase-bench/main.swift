import Foundation

let usage = """
    usage: pathbase-bench <suite>...
      memory   in-memory databases against a plain [Path: Any] dictionary
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
    default:
        print("unknown suite '\(suite)'\n\(usage)")
        exit(1)
    }
}
