import Pathbase
import Testing

// Model ids 700–749.

@Model(id: 700)
final class Author {
    @Property(id: 1) var name: String
    @Reference(id: 2) var favourite: Book?
    @Reference(id: 3) var latest: Book!
    @ReferenceList(id: 4) var books: [Book]
}

@Model(id: 701)
final class Book {
    @Property(id: 1) var title: String = "Untitled"
    @Reference(id: 2) var sequel: Book?
}

@Suite("Reads never write")
struct ReadsNeverWriteTests {

    /// An author whose references point to books 90, 91 and 92, none of which was created.
    private func authorWithDanglingReferences(in database: any Database) -> Author {
        let author: Author = database.create(id: 1)
        author.name = "Anonymous"
        author.favourite = Book(database: database, id: 90)
        author.latest = Book(database: database, id: 91)
        author.books = [Book(database: database, id: 92), Book(database: database, id: 90)]
        return author
    }

    @Test("Following references to never-created instances writes nothing", arguments: DatabaseKind.allCases)
    func readingDanglingReferencesWritesNothing(kind: DatabaseKind) {
        let counting = WriteCountingDatabase(wrapping: kind.make())
        let author = authorWithDanglingReferences(in: counting)
        counting.resetWrites()

        let favourite = author.favourite
        #expect(favourite?.id == 90)
        #expect(favourite?.title == "Untitled")
        #expect(favourite?.sequel == nil)
        #expect(author.latest.title == "Untitled")
        #expect(author.books.map(\.id) == [92, 90])
        #expect(author.books.map(\.title) == ["Untitled", "Untitled"])
        _ = author.name
        _ = author.status

        #expect(counting.writes == [])
    }

    @Test("A never-created instance has status .notCreated, not .created", arguments: DatabaseKind.allCases)
    func neverCreatedStatus(kind: DatabaseKind) {
        let database = kind.make()
        let author = authorWithDanglingReferences(in: database)
        #expect(author.favourite?.status == .notCreated)
        #expect(author.latest.status == .notCreated)
        #expect(author.books.map(\.status) == [.notCreated, .notCreated])
        #expect(Book(database: database, id: 12345).status == .notCreated)
        #expect("\(InstanceStatus.notCreated)" != "created")
    }

    @Test("After reading dangling references, the instances still do not exist", arguments: DatabaseKind.allCases)
    func readingCreatesNoInstance(kind: DatabaseKind) {
        let database = kind.make()
        let author = authorWithDanglingReferences(in: database)
        _ = author.favourite?.title
        _ = author.latest.sequel
        _ = author.books.map(\.status)

        #expect(database.all(of: Book.self).isEmpty)
        #expect(database.get(id: 90, of: Book.self) == nil)
        #expect(database.get(id: 91, of: Book.self) == nil)
        #expect(database.active(id: 92, of: Book.self) == nil)
        let statusPath = Path.status(model: Book.modelId, instance: 90)
        let stored: InstanceStatus? = database.get(statusPath)
        #expect(stored == nil)
    }

    @Test("get, active, all and status write nothing", arguments: DatabaseKind.allCases)
    func lookupsWriteNothing(kind: DatabaseKind) {
        let counting = WriteCountingDatabase(wrapping: kind.make())
        let author: Author = counting.create(id: 1)
        author.delete()
        counting.resetWrites()

        #expect(counting.get(id: 1, of: Author.self) != nil)
        #expect(counting.get(id: 2, of: Author.self) == nil)
        #expect(counting.active(id: 1, of: Author.self) == nil)
        #expect(counting.active(id: 2, of: Author.self) == nil)
        #expect(counting.all(of: Author.self).isEmpty)
        #expect(counting.all(Author.self) { _ in true }.isEmpty)
        #expect(author.status == .deleted)
        #expect(author.books.isEmpty)

        #expect(counting.writes == [])
    }

    @Test("getOrCreate writes only when the instance is not active", arguments: DatabaseKind.allCases)
    func getOrCreateWritesOnlyWhenNeeded(kind: DatabaseKind) {
        let counting = WriteCountingDatabase(wrapping: kind.make())
        let _: Author = counting.create(id: 1)
        counting.resetWrites()
        let _: Author = counting.getOrCreate(id: 1)
        #expect(counting.writes == [])
        let _: Author = counting.getOrCreate(id: 2)
        #expect(counting.writes == [Path.status(model: Author.modelId, instance: 2)])
    }

    @Test("Reads leave the stored data of the shipped databases unchanged")
    func storedDataUnchanged() {
        let plain = InMemoryDatabase()
        let history = InMemoryHistoryDatabase()
        let plainAuthor = authorWithDanglingReferences(in: plain)
        let historyAuthor = authorWithDanglingReferences(in: history)
        let valueCount = plain.count
        let recordCount = history.records().count

        for author in [plainAuthor, historyAuthor] {
            _ = author.favourite?.title
            _ = author.latest.status
            _ = author.books.map(\.sequel)
        }
        _ = plain.all(of: Book.self)
        _ = history.get(id: 91, of: Book.self)

        #expect(plain.count == valueCount)
        #expect(history.records().count == recordCount)
    }
}
