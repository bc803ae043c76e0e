import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// Value types stored first inside a nested batch that fails: their type-id rows are
/// rolled back, so nothing the database keeps in memory may still point at them.
private struct Parcel: Codable, Equatable, Sendable {
    var weight: Int
}

private struct Label: Codable, Equatable, Sendable {
    var text: String
}

@Suite("SQLiteDatabase: what a rolled-back batch wrote is forgotten in memory too")
struct RolledBackCacheTests {

    private static let model: ModelKey = 17

    private static func path(_ instance: InstanceKey) -> Path {
        Path(model: model, instance: instance, property: 1)
    }

    @Test("A type first stored in a failed nested batch, stored again by the outer batch, reads back after reopening")
    func nestedBatchStoresNewTypeThenThrows() throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        do {
            let database = try SQLiteDatabase(path: file)
            try database.batch {
                #expect(throws: TestError.self) {
                    try database.batch {
                        database.set(Parcel(weight: 1), for: Self.path(1))
                        throw TestError()
                    }
                }
                database.set(Parcel(weight: 2), for: Self.path(2))
            }
            // A second new type after the batch: it must not take the id the outer batch used.
            database.set(Label(text: "fragile"), for: Self.path(3))
            database.set(Parcel(weight: 4), for: Self.path(4))
            database.close()
        }
        let database = try SQLiteDatabase(path: file)
        #expect(database.get(Self.path(1)) as Parcel? == nil)
        #expect(database.get(Self.path(2)) as Parcel? == Parcel(weight: 2))
        #expect(database.get(Self.path(3)) as Label? == Label(text: "fragile"))
        #expect(database.get(Self.path(4)) as Parcel? == Parcel(weight: 4))
        #expect(database.get(Self.path(2)) as Label? == nil)
        let listed = database.records(after: nil).filter { $0.path.model == Self.model }
        #expect(listed.map(\.path) == [Self.path(2), Self.path(3), Self.path(4)])
        #expect(listed.first?.value as? Parcel == Parcel(weight: 2))
        #expect(listed.dropFirst().first?.value as? Label == Label(text: "fragile"))
    }

    @Test("After a failed outer batch, a type it stored first is stored again correctly")
    func outerBatchStoresNewTypeThenThrows() throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        do {
            let database = try SQLiteDatabase(path: file)
            #expect(throws: TestError.self) {
                try database.batch {
                    database.set(Parcel(weight: 1), for: Self.path(1))
                    throw TestError()
                }
            }
            database.set(Label(text: "after"), for: Self.path(2))
            database.set(Parcel(weight: 3), for: Self.path(3))
            database.close()
        }
        let database = try SQLiteDatabase(path: file)
        #expect(database.get(Self.path(1)) as Parcel? == nil)
        #expect(database.get(Self.path(2)) as Label? == Label(text: "after"))
        #expect(database.get(Self.path(3)) as Parcel? == Parcel(weight: 3))
    }

    @Test("A failed nested batch that created an instance does not leave it active in queries")
    func nestedBatchCreatesInstanceThenThrows() throws {
        let database = try SQLiteDatabase()
        Item.create(in: database, id: 1, title: "kept")
        // The active-instance set of the model is loaded by a query first.
        #expect(database.all(of: Item.self).map(\.id) == [1])
        try database.batch {
            #expect(throws: TestError.self) {
                try database.batch {
                    Item.create(in: database, id: 2, title: "rolled back")
                    throw TestError()
                }
            }
            #expect(database.fetch(QueryDescriptor<Item>(where: \.title >= "")).map(\.id) == [1])
        }
        #expect(database.fetch(QueryDescriptor<Item>(where: \.title >= "")).map(\.id) == [1])
        #expect(database.all(of: Item.self).map(\.id) == [1])
    }
}
