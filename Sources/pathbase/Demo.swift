import ArgumentParser
import Pathbase
import PathbaseSQLite

/// `pathbase demo`: walks through creating, editing, referencing, deleting and restoring
/// models, printing each step, in an SQLite file (or in memory).
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, edit, reference, delete and restore models, printing each step.",
        discussion: "By default the models are stored in an SQLite file, which `pathbase inspect` and `pathbase history` can then read."
    )

    @Option(help: "The SQLite file to store the demo's models in.")
    var path = "pathbase-demo.sqlite"

    @Flag(help: "Keep the models in memory instead of a file.")
    var inMemory = false

    func run() throws {
        if inMemory {
            print("Database: in memory, keeping history")
            run(on: InMemoryHistoryDatabase())
        } else {
            let database = try SQLiteDatabase(path: path)
            defer { database.close() }
            print("Database: SQLite file \(path), keeping history")
            try database.batch {
                run(on: database)
            }
            print("Stored in \(path). Try: pathbase inspect \(path) --model \(Book.modelId) --instance 1")
        }
    }

    private func run(on database: some HistoryDatabase) {

        let ursula = Author.create(in: database, id: 1, name: "Ursula K. Le Guin")
        print("Created author #\(ursula.id) '\(ursula.name)' (country: \(ursula.country), the default)")
        ursula.country = "USA"
        print("Set country: \(ursula.country)")

        let translator = Author.create(in: database, id: 2, name: "Jean Bailhache", country: "France")
        let book = Book.create(in: database, id: 1, title: "The Dispossessed", pages: 387, author: ursula)
        book.translators = [translator]
        print("Created book #\(book.id) '\(book.title)', \(book.pages) pages, by \(book.author?.name ?? "nobody"), translated by \(book.translators.map(\.name))")

        book.pages += 13
        print("Added pages: \(book.pages)")

        let again: Book? = database.get(id: 1)
        print("Fetched book #1 again through a new handle: '\(again?.title ?? "missing")', same instance: \(again == book)")

        translator.delete()
        print("Deleted the translator: status \(translator.status); the book's list still holds it, marked \(book.translators[0].status)")
        print("Active authors: \(database.all(of: Author.self).map(\.name).sorted())")

        translator.insert()
        print("Restored the translator: status \(translator.status), name still '\(translator.name)'")

        ursula.deleteAndClearProperties()
        print("Deleted and cleared the author: status \(ursula.status), name now '\(ursula.name)', country '\(ursula.country)'")
        print("The book's author reference now reads as status \(book.author.map { "\($0.status)" } ?? "none")")

        let titlePath = book.path(of: .title)
        book.title = "The Dispossessed: An Ambiguous Utopia"
        print("History of the book's title:")
        for entry in database.history(of: titlePath, as: String.self) {
            print("  \(entry.timestamp): \(entry.value)")
        }

        let unknown: Book? = database.get(id: 99)
        print("Book #99 was never created: get returns \(unknown == nil ? "nil" : "an instance"), nothing was written")
    }
}
