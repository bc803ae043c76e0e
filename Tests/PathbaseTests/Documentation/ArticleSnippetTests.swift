import Foundation
import Pathbase
import Testing

/// The DocC articles' examples compile (ArticleSnippets.swift) and do what the articles say.
@Suite("DocC articles: every example compiled and run")
struct ArticleSnippetTests {

    static let articles = ["GettingStarted", "ModelsAndCollections", "StorageAndGuarantees", "HistoryAndUndo", "SyncAndTheServer", "MigratingFromStateModel"]

    @Test("every Swift block of each article is in ArticleSnippets.swift", arguments: articles)
    func blocksCompiled(article: String) throws {
        let missing = try MarkdownSnippets.missing(
            markdown: "Sources/Pathbase/Pathbase.docc/\(article).md",
            source: "Tests/PathbaseTests/Documentation/ArticleSnippets.swift")
        #expect(missing.isEmpty, "\(missing)")
    }

    @Test("the examples run with the results the articles print")
    func examplesRun() throws {
        ArticleSnippets.gettingStarted()
        try ArticleSnippets.modelsAndCollections()
        try ArticleSnippets.storage()
        try ArticleSnippets.historyAndUndo()
    }
}
