import Foundation
import GRDB
import Pathbase
@testable import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: a listing in a transaction reads each property with one scan and stays exact")
struct ListingColumnsTests {

    /// Every stored kind of value, as one person.
    private static func fill(_ database: SQLiteDatabase) {
        let alice = Person.create(in: database, id: 1, name: "Alice", age: 30)
        alice.address = Address(street: "Main", number: 3)
        alice.nickname = "Al"
        alice.isAdmin = true
        alice.avatar = Data([1, 2, 3])
        alice.score = .nan
        alice.tags = ["a", "b"]
        alice.priority = .high
        alice.birthday = Date(timeIntervalSinceReferenceDate: 12.5)
        let bob = Person.create(in: database, id: 2, name: "Bob", age: 40)
        bob.partner = alice
        bob.friends = [alice]
        bob.avatar = Data()
        Person.create(in: database, id: 3, name: "", age: 0).delete()
    }

    /// Everything a person's properties read as.
    private static func snapshot(_ people: [Person]) -> [String] {
        people.sorted { $0.id < $1.id }.map { person in
            "\(person.id) \(person.name) \(person.age) \(person.address) \(person.nickname ?? "nil") \(person.isAdmin) "
                + "\(Array(person.avatar)) \(person.score) \(person.partner?.id ?? -1) \(person.friends.map(\.id)) "
                + "\(person.tags.sorted()) \(person.priority) \(person.birthday?.timeIntervalSinceReferenceDate ?? -1)"
        }
    }

    @Test("Listing inside read { } reads every kind of value as listing outside a transaction does")
    func sameValuesInsideAndOutside() throws {
        let database = try SQLiteDatabase()
        Self.fill(database)
        let outside = Self.snapshot(database.all(of: Person.self))
        let inside = try database.read { Self.snapshot(database.all(of: Person.self)) }
        #expect(inside == outside)
        #expect(inside.count == 2)
        #expect(inside.first?.hasPrefix("1 Alice 30 Address(street: \"Main\", number: 3) Al true [1, 2, 3] nan -1 [] [\"a\", \"b\"] high 12.5") == true)
        // A value read as another type than it was written as reads as nil, as outside.
        let wrongType: Int? = try database.read {
            _ = database.all(of: Person.self)
            return database.get(Path(model: Person.modelId, instance: 1, property: 1))
        }
        #expect(wrongType == nil)
    }

    @Test("Reads that alternate between listed instances, and a write between two reads of one, each read their own instance's value")
    func alternatingReads() throws {
        let database = try SQLiteDatabase()
        Self.fill(database)
        let reads = try database.batch { () -> [String] in
            let people = database.all(of: Person.self).sorted { $0.id < $1.id }
            let (alice, bob) = (people[0], people[1])
            var reads = [alice.name, bob.name, alice.name, "\(alice.age)", "\(bob.age)", bob.nickname ?? "nil"]
            bob.age = 41
            reads += ["\(bob.age)", "\(alice.age)", "\(bob.age)", alice.name]
            return reads
        }
        #expect(reads == ["Alice", "Bob", "Alice", "30", "40", "nil", "41", "30", "41", "Alice"])
    }

    @Test("A write after the listing is seen by the reads that follow it in the same batch")
    func writeAfterListing() throws {
        let database = try SQLiteDatabase()
        Self.fill(database)
        let (before, after, added) = try database.batch { () -> (String, String, [String]) in
            let alice = try #require(database.all(of: Person.self).first { $0.id == 1 })
            let before = alice.name
            alice.name = "Alicia"
            let added = Person.create(in: database, id: 4, name: "Dan", age: 5)
            return (before, alice.name, [added.name, "\(added.age)"])
        }
        #expect(before == "Alice")
        #expect(after == "Alicia")
        #expect(added == ["Dan", "5"])
    }

    @Test("The batch's own writes go into the listing: it stays kept, and reads every value as the committed file does")
    func writesGoThroughToTheListing() throws {
        let database = try SQLiteDatabase()
        Self.fill(database)
        let alice = ModelInstance(model: Person.modelId, instance: 1)
        let dan = ModelInstance(model: Person.modelId, instance: 4)
        let inside = try database.batch { () -> [String] in
            _ = database.all(of: Person.self)
            database.get(id: 1, of: Person.self)?.name = "Alicia"
            database.get(id: 2, of: Person.self)?.delete()
            Person.create(in: database, id: 4, name: "Dan", age: 5).friends = [try #require(database.get(id: 1, of: Person.self))]
            // A read of a path that waits writes every waiting write first.
            #expect(database.get(id: 4, of: Person.self)?.name == "Dan")
            // Written through rather than dropped: both bodies are kept, the new one in order.
            #expect(database.listingColumns.keptBody(of: alice) != nil)
            #expect(database.listingColumns.keptBody(of: dan)?.isEmpty == false)
            let people = Self.snapshot(database.all(of: Person.self))
            return people
        }
        #expect(inside == Self.snapshot(database.all(of: Person.self)))
        #expect(inside.map { $0.prefix(8) } == ["1 Alicia", "4 Dan 5 "])
    }

    @Test("What a rolled-back nested batch wrote is not read from the listing afterwards")
    func rolledBackSavepoint() throws {
        let database = try SQLiteDatabase()
        Self.fill(database)
        let name = try database.batch { () -> String in
            #expect(throws: TestError.self) {
                try database.batch {
                    database.get(id: 1, of: Person.self)?.name = "Changed"
                    // Listed after the write: the kept names include "Changed".
                    #expect(database.all(of: Person.self).first { $0.id == 1 }?.name == "Changed")
                    throw TestError()
                }
            }
            return database.get(id: 1, of: Person.self)?.name ?? "missing"
        }
        #expect(name == "Alice")
    }

    @Test("A read block after another connection's commit reads the new values")
    func nextTransactionSeesOtherConnection() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let database = try SQLiteDatabase(path: path)
        let other = try SQLiteDatabase(path: path)
        Self.fill(database)
        let first = try database.read { database.all(of: Person.self).map(\.name).sorted() }
        other.get(id: 1, of: Person.self)?.name = "Theirs"
        let second = try database.read { database.get(id: 1, of: Person.self)?.name }
        #expect(first == ["Alice", "Bob"])
        #expect(second == "Theirs")
    }

    @Test("A value whose storage class does not match its tag (a file edited by hand) reads as without a listing")
    func handEditedValue() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let database = try SQLiteDatabase(path: path)
            Self.fill(database)
        }
        // The age of Alice becomes the text '31' under the tag of Int.
        let queue = try rawQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    UPDATE instance_values SET body = (
                        SELECT pathbase_pack(property, time, counter, replica, type, CASE WHEN property = 2 THEN '31' ELSE value END)
                        FROM current_values WHERE model = ?1 AND instance = 1)
                    WHERE model = ?1 AND instance = 1
                    """, arguments: [Person.modelId])
        }
        try queue.close()
        let database = try SQLiteDatabase(path: path)
        let outside = database.get(id: 1, of: Person.self)?.age
        let inside = try database.read { database.all(of: Person.self).first { $0.id == 1 }?.age }
        #expect(outside == 31)
        #expect(inside == outside)
    }

    private struct Member: Codable, Identifiable, Equatable {
        var id: Int
        var name: String
    }

    @Test("A collection's fetch() takes its statuses from its scan: deleted structs stay out, a hand-edited status reads as from the file")
    func fetchAllStatusesFromTheScan() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let members = try SQLiteDatabase(path: path).collection(Member.self, name: "members")
            try members.save((1 ... 4).map { Member(id: $0, name: "m\($0)") })
            try members.delete(id: 2)
        }
        let database = try SQLiteDatabase(path: path)
        let members = database.collection(Member.self, name: "members")
        #expect(try members.fetch().map(\.id) == [1, 3, 4])
        #expect(try database.read { try members.fetch() }.map(\.id) == [1, 3, 4])
        database.close()
        // The status of member 3 becomes the text '1' (created) under the status tag.
        let queue = try rawQueue(path: path)
        let changed = try queue.write { db in
            try db.execute(
                sql: """
                    UPDATE instance_values SET body = (
                        SELECT pathbase_pack(c.property, c.time, c.counter, c.replica, c.type, CASE WHEN c.property = 0 AND c.type = 16 THEN '1' ELSE c.value END)
                        FROM current_values c WHERE c.model = instance_values.model AND c.instance = instance_values.instance)
                    WHERE instance = 3
                    """)
            return db.changesCount
        }
        try queue.close()
        #expect(changed == 1)
        let reopened = try SQLiteDatabase(path: path)
        let again = reopened.collection(Member.self, name: "members")
        #expect(try again.fetch().map(\.id) == [1, 3, 4])
        #expect(try reopened.read { try again.fetch() }.map(\.id) == [1, 3, 4])
    }

    @Test("A model whose blobs are more than a listing keeps is read from the file, with the same values")
    func blobsBeyondWhatIsKept() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file(), options: SQLiteDatabase.Options(keepsHistory: false))
        // Two blobs under the limit together, then one alone larger than it.
        let sizes = [ListingColumns.maximumBytes / 2, ListingColumns.maximumBytes / 2, ListingColumns.maximumBytes + 1]
        try database.batch {
            for (index, size) in sizes.enumerated() {
                Person.create(in: database, id: index + 1, name: "p\(index)", age: index).avatar = Data(repeating: UInt8(index + 1), count: size)
            }
        }
        let read = try database.read {
            database.all(of: Person.self).sorted { $0.id < $1.id }.map { ($0.name, $0.avatar.count, $0.avatar.last) }
        }
        #expect(read.map(\.0) == ["p0", "p1", "p2"])
        #expect(read.map(\.1) == sizes)
        #expect(read.map(\.2) == [1, 2, 3])
    }
}
