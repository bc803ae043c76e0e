import Foundation
import Testing

/// README's Layout table is the map of the repository: it names every target folder, every
/// folder inside the library targets, every test target and every script, and nothing that
/// is gone.
@Suite("README's Layout table matches the folders")
struct LayoutTableTests {

    private let root = MarkdownSnippets.packageRoot

    /// The table's rows: the first cell's folder, and the row's text.
    private func rows() throws -> [(folder: String, text: String)] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "\n## Layout\n") else { throw LayoutError("README.md has no '## Layout' section") }
        return readme[start.upperBound...].components(separatedBy: "\n").compactMap { line in
            guard line.hasPrefix("| `") else { return nil }
            let cells = line.components(separatedBy: "|")
            guard cells.count > 2 else { return nil }
            let folder = cells[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            return (folder, cells[2...].joined(separator: "|"))
        }
    }

    private func folders(in path: String) throws -> [String] {
        let url = root.appendingPathComponent(path)
        return try FileManager.default.contentsOfDirectory(atPath: url.path).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isFolder) && isFolder.boolValue
        }.sorted()
    }

    @Test("every folder of Sources/ has a row, and every row of a Sources folder names exactly its subfolders")
    func sources() throws {
        let rows = try rows()
        for target in try folders(in: "Sources") {
            let row = try #require(rows.first { $0.folder == "Sources/\(target)" }, "Sources/\(target) has no row")
            let subfolders = try folders(in: "Sources/\(target)").filter { $0 != "include" }
            for subfolder in subfolders {
                #expect(row.text.contains("`\(subfolder)/`"), "the row of Sources/\(target) does not name \(subfolder)/")
            }
            // Every `Name/` the row names exists.
            let named = row.text.matches(of: /`([A-Za-z]+(?:\.docc)?)\/`/).map { String($0.output.1) }
            for name in named {
                #expect(subfolders.contains(name), "the row of Sources/\(target) names \(name)/, which does not exist")
            }
        }
        for row in rows where row.folder.hasPrefix("Sources/") {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(row.folder).path), "\(row.folder) has a row but no folder")
        }
    }

    @Test("the Tests row names every test folder, and the scripts row every script")
    func testsAndScripts() throws {
        let rows = try rows()
        let tests = try #require(rows.first { $0.folder == "Tests/" })
        for folder in try folders(in: "Tests") {
            #expect(tests.text.contains("`\(folder)`"), "the Tests row does not name \(folder)")
        }
        let scripts = try #require(rows.first { $0.folder == "scripts/" })
        let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("scripts").path)
        for script in names where !script.hasPrefix(".") && script != "tsan-suppressions" {
            #expect(scripts.text.contains("`\(script)`"), "the scripts row does not name \(script)")
        }
    }

    struct LayoutError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
