import Foundation

/// The Swift code blocks of a markdown file, checked against the test source that compiles
/// them, so that documentation and tests cannot drift apart.
///
/// Every ```` ```swift ```` block must appear verbatim, as consecutive lines, between the
/// lines `// BEGIN MARKDOWN SNIPPETS` and `// END MARKDOWN SNIPPETS` of the source file.
/// Only a uniform indentation may be added to all its lines, so that a block can sit inside
/// a function; blank lines match blank lines. Blocks opened with ```` ```swift ignore ````
/// (for SwiftUI or SwiftData code, which does not build on Linux) are not checked.
///
/// ```swift
/// let missing = try MarkdownSnippets.missing(markdown: "MIGRATING.md", source: "Tests/PathbaseTests/Documentation/MigratingSnippets.swift")
/// #expect(missing.isEmpty)
/// ```
struct MarkdownSnippets {

    /// One code block of the markdown file.
    struct Block: CustomStringConvertible {
        /// The line of the opening fence, from 1.
        let line: Int
        /// The block's lines, without the fences.
        let lines: [String]

        var description: String { "block at line \(line):\n" + lines.joined(separator: "\n") }
    }

    static let beginMarker = "// BEGIN MARKDOWN SNIPPETS"
    static let endMarker = "// END MARKDOWN SNIPPETS"

    /// The root of the package: where `Package.swift` is.
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/", !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url
    }()

    /// The ```` ```swift ```` blocks of markdown text that are to be compiled.
    static func compiledBlocks(in markdown: String) -> [Block] {
        var blocks: [Block] = []
        var current: (line: Int, lines: [String])?
        var inOtherFence = false
        for (offset, line) in markdown.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let open = current {
                if trimmed == "```" {
                    blocks.append(Block(line: open.line, lines: open.lines))
                    current = nil
                } else {
                    current?.lines.append(line)
                }
            } else if inOtherFence {
                if trimmed == "```" { inOtherFence = false }
            } else if trimmed == "```swift" {
                current = (offset + 1, [])
            } else if trimmed.hasPrefix("```") {
                inOtherFence = true
            }
        }
        return blocks
    }

    /// The lines of a source file between the markers.
    static func markedLines(in source: String) throws -> [String] {
        let lines = source.components(separatedBy: "\n")
        guard let begin = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == beginMarker }),
            let end = lines.lastIndex(where: { $0.trimmingCharacters(in: .whitespaces) == endMarker }),
            begin < end
        else {
            throw SnippetError.noMarkers
        }
        return Array(lines[(begin + 1) ..< end])
    }

    /// Whether `block` appears in `lines` as consecutive lines with one added indentation.
    static func contains(_ lines: [String], _ block: Block) -> Bool {
        let wanted = block.lines
        guard !wanted.isEmpty, wanted.count <= lines.count else { return wanted.isEmpty }
        for start in 0 ... (lines.count - wanted.count) {
            var indent: Substring?
            var matches = true
            for (index, expected) in wanted.enumerated() {
                let actual = lines[start + index]
                if expected.trimmingCharacters(in: .whitespaces).isEmpty {
                    guard actual.trimmingCharacters(in: .whitespaces).isEmpty else {
                        matches = false
                        break
                    }
                    continue
                }
                guard actual.hasSuffix(expected) else {
                    matches = false
                    break
                }
                let prefix = actual.dropLast(expected.count)
                guard prefix.allSatisfy({ $0 == " " }), indent == nil || indent == prefix else {
                    matches = false
                    break
                }
                indent = prefix
            }
            if matches { return true }
        }
        return false
    }

    /// The compiled blocks of a markdown file that its source file lacks; paths are relative
    /// to the package root.
    static func missing(markdown: String, source: String) throws -> [Block] {
        let markdownText = try String(contentsOf: packageRoot.appendingPathComponent(markdown), encoding: .utf8)
        let sourceText = try String(contentsOf: packageRoot.appendingPathComponent(source), encoding: .utf8)
        let lines = try markedLines(in: sourceText)
        return compiledBlocks(in: markdownText).filter { !contains(lines, $0) }
    }

    enum SnippetError: Error, CustomStringConvertible {
        case noMarkers
        var description: String { "the source file has no '\(beginMarker)' … '\(endMarker)' region" }
    }
}
