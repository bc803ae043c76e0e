import Foundation
import Pathbase
import Testing

// Model id 2161.

private struct ImportedParcelAddress: Codable, Equatable {
    var street: String
    var number: Int
}

@Model(id: 2161)
private final class ImportedParcel {
    @Property(id: 1) var label: String
    @Property(id: 2) var weight: Double
    @Property(id: 3) var address: ImportedParcelAddress = ImportedParcelAddress(street: "", number: 0)
    @Reference(id: 4) var next: ImportedParcel?
}

/// What the README says of an import into a database of your own (the three-function kind
/// of "Writing your own database"): every value arrives, a `Codable` struct as the
/// `EncodedValue` the export carried, which such a database returns as stored — it reads as
/// `EncodedValue` and decodes with `decode(as:)`, not as the struct (Pathbase's own
/// databases decode it on read, and so does a `CachedDatabase` over yours, which is left out
/// here; `ExportImportTests` covers those).
@Suite("Export and import into a database of your own")
struct ExportImportCustomDatabaseTests {

    private static let customKinds = DatabaseKind.allCases.filter { ($0.backend == .minimal || $0.backend == .readmeMinimal) && !$0.wrappers.contains(.cached) }

    @Test("every plain value, reference and status arrives; a Codable struct arrives as its EncodedValue", arguments: customKinds)
    func importIntoCustomDatabase(kind: DatabaseKind) throws {
        let source = InMemoryHistoryDatabase()
        let first = ImportedParcel.create(in: source, id: 1, label: "first", weight: 1.5)
        first.address = ImportedParcelAddress(street: "Main", number: 7)
        let second = ImportedParcel.create(in: source, id: 2, label: "second", weight: 2)
        first.next = second
        second.label = "second, relabelled"
        ImportedParcel.create(in: source, id: 3, label: "gone", weight: 0).delete()

        let database = kind.make()
        try database.importRecords(from: source.exportRecords())

        let parcel = try #require(database.get(id: 1, of: ImportedParcel.self))
        #expect(parcel.label == "first")
        #expect(parcel.weight == 1.5)
        #expect(parcel.next?.label == "second, relabelled")
        #expect(database.get(id: 3, of: ImportedParcel.self)?.status == .deleted)
        #expect(Set(database.all(of: ImportedParcel.self).map(\.id)) == [1, 2])

        // The struct: stored as the EncodedValue, which decodes to it; read as the struct,
        // the database's `as? Value` cast fails and the property shows its default.
        let addressPath = Path(model: 2161, instance: 1, property: 3)
        let encoded: EncodedValue? = database.get(addressPath)
        #expect(try encoded?.decode(as: ImportedParcelAddress.self) == ImportedParcelAddress(street: "Main", number: 7))
        #expect(database.get(addressPath) as ImportedParcelAddress? == nil)
        #expect(parcel.address == ImportedParcelAddress(street: "", number: 0))
    }
}
