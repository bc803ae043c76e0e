import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Suite("Codable collections: several threads")
struct CollectionConcurrencyTests {

    @Test(arguments: [DatabaseKind.inMemory, .inMemoryHistory, .sqliteFile, .cachedHistory])
    func concurrentSavesFetchesAndGeneratedIds(kind: DatabaseKind) async throws {
        let database = kind.make()
        guard let sendable = database as? any Database & Sendable else { Issue.record("not Sendable"); return }
        let nodes = sendable.collection(CollectionNode.self)
        let threads = 4, perThread = 50
        let ids = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0 ..< threads {
                group.addTask {
                    var made: [Int] = []
                    for step in 0 ..< perThread {
                        let id = try nodes.nextId()
                        try nodes.save(CollectionNode(id: id, title: "n\(step)", next: made.last))
                        if let previous = made.last { #expect(try nodes.fetch(id: previous)?.id == previous) }
                        made.append(id)
                    }
                    return made
                }
            }
            var all: [Int] = []
            for try await made in group { all += made }
            return all
        }
        #expect(Set(ids).count == threads * perThread)
        #expect(try nodes.count() == threads * perThread)
        #expect(try Set(nodes.fetch().map(\.id)) == Set(ids))
    }
}
