import Foundation
import PathbaseTestSupport
import Testing

/// `scripts/mutants` is run by hand, not in CI; this keeps its mutants meaningful in between:
/// a refactor that changes a mutant's original text would otherwise make that mutant a
/// no-op that every later run counts as survived (or, worse, nobody notices).
@Suite("scripts/mutants: every mutant's original text occurs exactly once in Sources/")
struct MutantsScriptTests {

    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func check(root: URL) throws -> (status: Int32, output: String) {
        let script = Self.root.appendingPathComponent("scripts/mutants").path
        let result = try ChildProcess.run("/usr/bin/env", ["python3", script, "--check", "--root", root.path])
        return (result.status, result.output + result.errors)
    }

    @Test("the real sources hold every mutant's original text once, and there are at least 25 mutants")
    func realSourcesMatch() throws {
        let result = try check(root: Self.root)
        #expect(result.status == 0, "\(result.output)")
        let count = result.output.firstMatch(of: /mutants: (\d+), every original text occurs once/).flatMap { Int($0.output.1) }
        #expect((count ?? 0) >= 25, "\(result.output)")
    }

    @Test("a tree where an original text is gone fails the check, naming the mutant and its file")
    func missingTextFails() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-mutants-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Sources"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try check(root: folder)
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains("sqlite-newest-wins-flipped: the original text occurs 0 times in Sources/PathbaseSQLite/Database/PendingWrites.swift"), "\(result.output)")
    }
}
