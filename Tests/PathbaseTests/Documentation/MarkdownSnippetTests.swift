import Foundation
import Testing

@Suite("Markdown snippets are compiled verbatim")
struct MarkdownSnippetTests {

    @Test("Every Swift block of MIGRATING.md is in MigratingSnippets.swift")
    func migrating() throws {
        let blocks = MarkdownSnippets.compiledBlocks(in: try String(contentsOf: MarkdownSnippets.packageRoot.appendingPathComponent("MIGRATING.md"), encoding: .utf8))
        #expect(blocks.count >= 15)
        let missing = try MarkdownSnippets.missing(markdown: "MIGRATING.md", source: "Tests/PathbaseTests/Documentation/MigratingSnippets.swift")
        #expect(missing.isEmpty, "MIGRATING.md has Swift blocks that no test compiles:\n\(missing.map(\.description).joined(separator: "\n\n"))")
    }

    @Test("Every Swift block of README.md is in the ReadmeExamples program, in order")
    func readme() throws {
        let blocks = MarkdownSnippets.compiledBlocks(in: try String(contentsOf: MarkdownSnippets.packageRoot.appendingPathComponent("README.md"), encoding: .utf8))
        #expect(blocks.count >= 14)
        let missing = try MarkdownSnippets.missing(markdown: "README.md", source: "Tests/ReadmeExamples/main.swift")
        #expect(missing.isEmpty, "README.md has Swift blocks that the ReadmeExamples program lacks (run scripts/readme-examples):\n\(missing.map(\.description).joined(separator: "\n\n"))")
    }

    @Test("The README's MinimalDatabase is the contract suite's ReadmeMinimalDatabase, word for word")
    func readmeMinimalDatabase() throws {
        let readme = try String(contentsOf: MarkdownSnippets.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(MarkdownSnippets.compiledBlocks(in: readme).first { $0.lines.first == "final class MinimalDatabase: Database {" })
        let renamed = MarkdownSnippets.Block(line: block.line, lines: block.lines.map { $0.replacingOccurrences(of: "MinimalDatabase", with: "ReadmeMinimalDatabase") })
        let source = try String(contentsOf: MarkdownSnippets.packageRoot.appendingPathComponent("Tests/PathbaseTests/ReadmeMinimalDatabase.swift"), encoding: .utf8)
        let lines = try MarkdownSnippets.markedLines(in: source)
        #expect(MarkdownSnippets.contains(lines, renamed) && lines.count == renamed.lines.count, "ReadmeMinimalDatabase.swift differs from the README's \(block)")
    }

    @Test("Blocks are found; ignored and other-language blocks are skipped")
    func extraction() {
        let markdown = """
            Text
            ```swift
            let a = 1
            ```
            ```swift ignore
            import SwiftUI
            ```
            ```sh
            swift test
            ```
            ```swift
                indented()

            after()
            ```
            """
        let blocks = MarkdownSnippets.compiledBlocks(in: markdown)
        #expect(blocks.map(\.lines) == [["let a = 1"], ["    indented()", "", "after()"]])
        #expect(blocks.map(\.line) == [2, 11])
    }

    @Test("A block matches only consecutive lines with one uniform indentation")
    func matching() {
        let block = MarkdownSnippets.Block(line: 1, lines: ["let a = 1", "", "if a > 0 {", "    print(a)", "}"])
        let inFunction = ["func f() {", "    let a = 1", "", "    if a > 0 {", "        print(a)", "    }", "}"]
        #expect(MarkdownSnippets.contains(inFunction, block))
        let changed = ["    let a = 1", "", "    if a > 1 {", "        print(a)", "    }"]
        #expect(!MarkdownSnippets.contains(changed, block))
        let unevenIndent = ["    let a = 1", "", "      if a > 0 {", "          print(a)", "      }"]
        #expect(!MarkdownSnippets.contains(unevenIndent, block))
        let interrupted = ["let a = 1", "", "if a > 0 {", "    log()", "    print(a)", "}"]
        #expect(!MarkdownSnippets.contains(interrupted, block))
        let prefixed = ["xlet a = 1", "", "if a > 0 {", "    print(a)", "}"]
        #expect(!MarkdownSnippets.contains(prefixed, block))
    }

    @Test("A source without markers is an error, not a pass")
    func noMarkers() {
        #expect(throws: MarkdownSnippets.SnippetError.self) { try MarkdownSnippets.markedLines(in: "let a = 1") }
    }
}
