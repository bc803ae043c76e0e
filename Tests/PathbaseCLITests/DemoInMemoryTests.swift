import Foundation
import Testing

/// README: `pathbase demo --in-memory` keeps nothing; without it, the demo's people go to
/// `pathbase-demo.sqlite`.
@Suite("pathbase demo --in-memory")
struct DemoInMemoryTests {

    @Test("--in-memory runs the whole demo and writes no file to the working directory")
    func writesNoFile() throws {
        let directory = try TemporaryDirectory()
        let result = try CommandRunner.run(["demo", "--in-memory"], in: directory)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.isEmpty, "\(result.errorOutput)")
        #expect(result.output.hasPrefix("Database: in memory, keeping history"), "\(result.output)")
        #expect(result.output.contains("Created book #1 'The Dispossessed'"), "\(result.output)")
        #expect(!result.output.contains("Stored in"), "\(result.output)")
        // Only CommandRunner's own output files may appear (it removes them after each run).
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix("stdout-") && !$0.hasPrefix("stderr-") }
        #expect(left.isEmpty, "the demo wrote \(left)")

        // Without the flag the same demo does write its file: the check above can fail.
        let stored = try CommandRunner.run(["demo"], in: directory)
        #expect(stored.status == 0, "\(stored.errorOutput)")
        #expect(FileManager.default.fileExists(atPath: directory.file("pathbase-demo.sqlite")))
    }
}
