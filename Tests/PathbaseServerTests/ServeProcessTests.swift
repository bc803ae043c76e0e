import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import Testing

/// A `pathbase serve` child process on 127.0.0.1, found next to the test binary.
final class ServeProcess: @unchecked Sendable {
    // @unchecked: Process is used from one task at a time; `kill` from another only ends it.
    let process = Process()
    let url: URL
    private let outputPath: String

    /// The `pathbase` executable built with the tests.
    static var executable: URL? {
        [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("pathbase") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `pathbase ARGUMENTS` to its end and returns what it printed.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        guard let executable else { throw HTTPTestFailure("the pathbase executable was not built next to the tests") }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let errorPath = ServerTestFiles.newPath() + ".err"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = errors
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errors.close()
        let errorText = try String(contentsOfFile: errorPath, encoding: .utf8)
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), errorText)
    }

    /// Starts `pathbase serve --database FILE --port 0` and waits (at most 30 s) for the
    /// line that says where it listens.
    convenience init(database: String) throws {
        try self.init(store: ["--database", database])
    }

    /// Starts `pathbase serve STORE --port 0` (`--database FILE` or `--postgres URL`) and
    /// waits (at most 30 s) for the line that says where it listens.
    init(store: [String]) throws {
        guard let executable = Self.executable else { throw HTTPTestFailure("the pathbase executable was not built next to the tests") }
        outputPath = ServerTestFiles.newPath() + ".out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.executableURL = executable
        process.arguments = ["serve"] + store + ["--port", "0"]
        process.environment = ProcessInfo.processInfo.environment.merging(["LOG_LEVEL": "warning"]) { $1 }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        try output.close()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on http://") }),
               let address = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
               let url = URL(string: String(address)) {
                self.url = url
                return
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.terminate()
        throw HTTPTestFailure("pathbase serve did not say where it listens: \((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")")
    }

    /// Everything the process printed.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// kill -9: no chance to finish anything.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then waits for it to exit.
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite("pathbase serve as a process: accounts, two replicas, kill -9 during a push")
struct ServeProcessTests {

    @Test("replicas sync through a real pathbase serve; killed during a push and restarted, nothing is lost or duplicated; SIGTERM stops it cleanly")
    func killDuringPush() async throws {
        let serverFile = ServerTestFiles.newPath()
        let added = try ServeProcess.run(["accounts", "add", "alice", "--database", serverFile])
        #expect(added.status == 0)
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count == 43)

        var serve = try ServeProcess(database: serverFile)
        let writerFile = ServerTestFiles.newPath()
        let writer = try SQLiteDatabase(path: writerFile)
        for instance in 1 ... 3000 {
            writer.set("value \(instance)", for: Path(model: 7, instance: instance, property: 1))
        }
        let replica = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token), batchSize: 100)
        let first = serve
        let killer = Task {
            try await Task.sleep(for: .milliseconds(150))
            first.kill()
        }
        do {
            try await replica.push()
        } catch is ReplicaError {
            throw HTTPTestFailure("the replica failed, not the connection")
        } catch {
            // The connection broke when the server died: expected.
        }
        try await killer.value
        let acknowledgedBefore = writer.records().filter { $0.path.model == 7 }.count - replica.pendingRecords().count

        serve = try ServeProcess(database: serverFile)
        let restarted = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token), batchSize: 100)
        try await restarted.sync()
        #expect(restarted.pendingRecords().isEmpty)

        let reader = try SQLiteDatabase(path: ServerTestFiles.newPath())
        let readerReplica = try Replica(database: reader, transport: HTTPSyncTransport(server: serve.url, token: token), pageSize: 250)
        let report = try await readerReplica.sync()
        #expect(report.pulled == 3000, "acknowledged before the kill: \(acknowledgedBefore)")
        for instance in [1, 1500, 3000] {
            #expect(reader.get(Path(model: 7, instance: instance, property: 1)) == "value \(instance)")
        }
        // The command line: status of the writer, a one-time sync of a new file, a wrong token.
        let status = try ServeProcess.run(["status", writerFile])
        #expect(status.status == 0)
        #expect(status.output.contains("pending: 0") && status.output.contains("rejected: 0"), "\(status.output)")
        let copyFile = ServerTestFiles.newPath()
        let synced = try ServeProcess.run(["sync", copyFile, "--server", serve.url.absoluteString, "--token", token])
        #expect(synced.status == 0)
        #expect(synced.output.contains("pulled 3000, cursor 3000"), "\(synced.output)")
        let refused = try ServeProcess.run(["sync", copyFile, "--server", serve.url.absoluteString, "--token", "wrong"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("HTTP 401") && refused.errors.contains("The token belongs to no account"), "\(refused.errors)")

        #expect(serve.stop() == 0)
        #expect(serve.output.contains("pathbase serve: stopped"))

        // The file holds every record once.
        let server = SyncServer(store: try SQLiteSyncServerStore(path: serverFile))
        let log = try await server.pull(PullRequest(after: 0, limit: 1000), token: token)
        #expect(log.cursor == 1000 && log.hasMore)
        let all = try await server.store.records(of: AccountID(rawValue: 1), after: 0, limit: 10_000)
        #expect(all.count == 3000)
        #expect(Set(all.map(\.record.key)).count == 3000)
    }
}
