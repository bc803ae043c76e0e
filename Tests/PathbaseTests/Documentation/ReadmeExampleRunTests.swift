import Foundation
import PathbaseTestSupport
import Testing

@Suite("README: the examples run as one program")
struct ReadmeExampleRunTests {

    /// The `ReadmeExamples` executable, built next to the test binary.
    private static var program: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent()
        ]
        return
            candidates
            .map { $0.appendingPathComponent("ReadmeExamples") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test("The program exits 0 and prints what the README says it prints")
    func run() async throws {
        let program = try #require(Self.program, "ReadmeExamples was not built next to the tests")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // In `folder`: the examples create people.sqlite there.
        let run = try await ChildProcess.run(program.path, [], directory: folder.path, timeout: 300)
        let lines = (run.output + run.errors).split(separator: "\n").map(String.init)

        #expect(run.status == 0, "output:\n\(lines.joined(separator: "\n"))")
        // Quick start, caching, observation and queries print these, in this order.
        let expected = ["Bob", "2", "deleted", "Write docs", "ann will change", "name will change", "person 100 changed"]
        let printed = lines.filter { expected.contains($0) }
        #expect(printed == expected, "output:\n\(lines.joined(separator: "\n"))")
        #expect(lines.contains("3 true"), "the actor imports three people, and a read sees all or none")
        #expect(lines.contains("true true"), "the asset reads back whole and chunked from its named file")
        #expect(lines.contains("1 1 []"), "the asset goes up with the recorder's sync and comes down with the mixer's: \(lines)")
        #expect(lines.contains { $0.hasSuffix(" Carol") }, "the history example prints Carol's name with its timestamp")
        // The progress example: a line per pulled page of the 10^5-record initial sync, rising.
        let progress = lines.filter { $0.hasPrefix("initial sync: ") }
        #expect(progress.count == 100, "\(progress.prefix(3)) … \(progress.suffix(2))")
        #expect(progress.first == "initial sync: 1000 of 100000, 1 %" && progress.last == "initial sync: 100000 of 100000, 100 %")
        #expect(lines.contains("true 0 no error"))
        // The collections example: adults sorted by name, then the count after two deletes.
        #expect(lines.contains(#"["Ada", "Alan"]"#), "output:\n\(lines.joined(separator: "\n"))")
        #expect(lines.contains("1 Ada"), "output:\n\(lines.joined(separator: "\n"))")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("people.sqlite").path))
    }
}
