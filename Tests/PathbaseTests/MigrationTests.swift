import Pathbase
import Testing

// Model ids 800–849.

struct LegacyAddress: Codable, Equatable {
    var line: String
}

struct Address: Codable, Equatable {
    var street: String
    var number: Int
}

/// The current version of a model whose property types changed over time.
@Model(id: 800)
final class Contact {
    @Property(id: 1) var age: Int
    @Property(id: 2) var nickname: String = "none"
    @Property(id: 3) var address: Address = Address(street: "unknown", number: 0)
    @Property(id: 4) var tags: Set<String>
    @Property(id: 5) var rating: Double?
    @Reference(id: 6) var manager: Contact?
    @ReferenceList(id: 7) var friends: [Contact]
}

/// Two versions of one model, as they would exist in two releases of an app.
/// They share model id 810, so they are never used through the same database's
/// create/get/all (which would stop the program); the newer version reads the instance
/// through a handle, as code after an update would.
@Model(id: 810)
final class ProfileV1 {
    @Property(id: 1) var score: String
    @Property(id: 2) var unchanged: Int
}

@Model(id: 810)
final class ProfileV2 {
    @Property(id: 1) var score: Int = -1
    @Property(id: 2) var unchanged: Int
    @Property(id: 3) var added: String = "new"
}

@Suite("Migration: values of another type read as the default")
struct MigrationTests {

    @Test("A stored value of another type reads as the property's default", arguments: DatabaseKind.allCases)
    func mismatchReadsDefault(kind: DatabaseKind) {
        let database = kind.make()
        let contact: Contact = database.create(id: 1)
        database.set("forty", for: contact.path(of: .age))
        database.set(42, for: contact.path(of: .nickname))
        database.set(LegacyAddress(line: "Main Street 1"), for: contact.path(of: .address))
        database.set(["a", "b"], for: contact.path(of: .tags))
        database.set("five stars", for: contact.path(of: .rating))

        #expect(contact.age == 0)
        #expect(contact.nickname == "none")
        #expect(contact.address == Address(street: "unknown", number: 0))
        #expect(contact.tags == [])
        #expect(contact.rating == nil)
    }

    @Test("References and reference lists of another type read as empty", arguments: DatabaseKind.allCases)
    func mismatchedReferences(kind: DatabaseKind) {
        let database = kind.make()
        let contact: Contact = database.create(id: 1)
        database.set("someone", for: contact.path(of: .manager))
        database.set(["x", "y"], for: contact.path(of: .friends))
        #expect(contact.manager == nil)
        #expect(contact.friends.isEmpty)
    }

    @Test("Reading leaves the stored value of the other type untouched", arguments: DatabaseKind.allCases)
    func storedValueUntouched(kind: DatabaseKind) {
        let database = kind.make()
        let contact: Contact = database.create(id: 1)
        let agePath = contact.path(of: .age)
        let addressPath = contact.path(of: .address)
        database.set("forty", for: agePath)
        database.set(LegacyAddress(line: "Main Street 1"), for: addressPath)

        _ = contact.age
        _ = contact.address

        let age: String? = database.get(agePath)
        let address: LegacyAddress? = database.get(addressPath)
        #expect(age == "forty")
        #expect(address == LegacyAddress(line: "Main Street 1"))
    }

    @Test("Writing the property replaces the old value with one of the new type", arguments: DatabaseKind.allCases)
    func writeReplacesOldValue(kind: DatabaseKind) {
        let database = kind.make()
        let contact: Contact = database.create(id: 1)
        database.set("forty", for: contact.path(of: .age))
        contact.age = 40
        #expect(contact.age == 40)
        let old: String? = database.get(contact.path(of: .age))
        #expect(old == nil)
        let new: Int? = database.get(contact.path(of: .age))
        #expect(new == 40)
    }

    @Test("A newer model version reads changed properties as defaults, the rest as stored", arguments: DatabaseKind.allCases)
    func modelVersions(kind: DatabaseKind) {
        let database = kind.make()
        let old = ProfileV1.create(in: database, id: 1, score: "high", unchanged: 7)
        #expect(old.score == "high")

        // After the "update", only the new type is used with this database.
        let new = ProfileV2(database: database, id: 1)
        #expect(new.status == .created)
        #expect(new.score == -1)
        #expect(new.unchanged == 7)
        #expect(new.added == "new")

        // The old record is still there, readable as its own type.
        let stored: String? = database.get(new.path(of: .score))
        #expect(stored == "high")
        #expect(old.score == "high")

        new.score = 3
        #expect(new.score == 3)
    }

    @Test("Each model version registers fine with its own database")
    func versionsInSeparateDatabases() {
        let before = InMemoryDatabase()
        let after = InMemoryDatabase()
        let _: ProfileV1 = before.create(id: 1)
        let _: ProfileV2 = after.create(id: 1)
        #expect(before.all(of: ProfileV1.self).count == 1)
        #expect(after.all(of: ProfileV2.self).count == 1)
        #expect(ProfileV1.modelId == ProfileV2.modelId)
    }

    @Test("In history, the older record of the other type stays readable")
    func historyKeepsOldRecord() {
        let database = InMemoryHistoryDatabase()
        let contact: Contact = database.create(id: 1)
        database.set("forty", for: contact.path(of: .age))
        contact.age = 40
        #expect(database.history(of: contact.path(of: .age), as: String.self).map(\.value) == ["forty"])
        #expect(database.history(of: contact.path(of: .age), as: Int.self).map(\.value) == [40])
        #expect(database.records(at: contact.path(of: .age)).count == 2)
    }
}
