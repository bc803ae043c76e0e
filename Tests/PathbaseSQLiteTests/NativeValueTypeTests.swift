import Foundation
@testable import Pathbase
@testable import PathbaseSQLite
import Testing

/// A model with a stored property of every queryable native type, to run a pushed-down
/// filter on each.
@Model(id: 2791)
final class NativeValueHolder {
    @Property(id: 1) var bool: Bool
    @Property(id: 2) var int: Int
    @Property(id: 3) var int8: Int8
    @Property(id: 4) var int16: Int16
    @Property(id: 5) var int32: Int32
    @Property(id: 6) var int64: Int64
    @Property(id: 7) var uint8: UInt8
    @Property(id: 8) var uint16: UInt16
    @Property(id: 9) var uint32: UInt32
    @Property(id: 10) var double: Double
    @Property(id: 11) var float: Float
    @Property(id: 12) var string: String
    @Property(id: 13) var date: Date = Date(timeIntervalSinceReferenceDate: 0)
}

@Suite("Every native value type goes through archive, SQLite, query push-down and asset scan alike")
struct NativeValueTypeTests {

    /// A value of each type, away from its default. The switch is exhaustive: a new case
    /// does not compile until it has a sample, and then every test below covers it.
    private static func sample(_ native: NativeValueType) -> any NativeDatabaseValue & Equatable {
        switch native {
        case .bool: true
        case .int: Int.min + 7
        case .int8: Int8(-100)
        case .int16: Int16(-30_000)
        case .int32: Int32(2_000_000_000)
        case .int64: Int64.max - 3
        case .uint: UInt.max - 5
        case .uint8: UInt8(250)
        case .uint16: UInt16(65_000)
        case .uint32: UInt32(4_000_000_000)
        case .uint64: UInt64.max - 9
        case .double: 3.25
        case .float: Float(-1.5)
        case .string: "naïve ✓"
        case .data: Data([0, 1, 254, 255])
        case .date: Date(timeIntervalSinceReferenceDate: 123_456.789)
        case .instanceStatus: InstanceStatus.deleted
        case .integerArray: [3, -1, Int.max]
        }
    }

    /// For a queryable type, the holder's property of that type: the pushed-down equality
    /// filter on the sample, and how to write the sample into it; `nil` for another type.
    private static func property(_ native: NativeValueType) -> (filter: QueryFilter<NativeValueHolder>, write: (NativeValueHolder) -> Void)? {
        func queryable<Value: QueryableValue>(_ keyPath: ReferenceWritableKeyPath<NativeValueHolder, Value>) -> (QueryFilter<NativeValueHolder>, (NativeValueHolder) -> Void)? {
            guard let value = sample(native) as? Value else { return nil }
            return (keyPath == value, { $0[keyPath: keyPath] = value })
        }
        switch native {
        case .bool: return queryable(\.bool)
        case .int: return queryable(\.int)
        case .int8: return queryable(\.int8)
        case .int16: return queryable(\.int16)
        case .int32: return queryable(\.int32)
        case .int64: return queryable(\.int64)
        case .uint8: return queryable(\.uint8)
        case .uint16: return queryable(\.uint16)
        case .uint32: return queryable(\.uint32)
        case .double: return queryable(\.double)
        case .float: return queryable(\.float)
        case .string: return queryable(\.string)
        case .date: return queryable(\.date)
        case .uint, .uint64, .data, .instanceStatus, .integerArray: return nil
        }
    }

    @Test("The table and the conformances agree: each case's type names its case, and is QueryableValue and Defaultable exactly when the table says", arguments: NativeValueType.allCases)
    func conformances(native: NativeValueType) {
        let value = Self.sample(native)
        #expect(NativeValueType(of: value) == native)
        #expect(type(of: value).nativeType == native)
        #expect(ObjectIdentifier(native.type) == ObjectIdentifier(type(of: value)))
        #expect((native.type is any QueryableValue.Type) == native.isQueryable)
        #expect((native.type is any Defaultable.Type) == native.isDefaultable)
        #expect(NativeValueType(name: native.name) == native)
        // SQLite's tags map both ways.
        #expect(ValueTag(native).native == native)
        #expect(native.storedType?.nativeType == native)
        #expect(ValueTag(native).nativeType.map { ObjectIdentifier($0) } == ObjectIdentifier(native.type))
    }

    @Test("A value of each type reads back as itself from an export document, under its name", arguments: NativeValueType.allCases)
    func archive(native: NativeValueType) throws {
        func check<Value: NativeDatabaseValue & Equatable>(_ value: Value) throws {
            let record = Record(path: Path(model: 1, instance: 1, property: 1), timestamp: Timestamp(time: 1, counter: 0, replica: 1), value: value)
            let data = try RecordArchive.encode([record])
            let document = try JSONDecoder().decode(RecordArchive.Document.self, from: data)
            #expect(document.records.first?.type == native.name)
            let restored = try RecordArchive.decode(data)
            #expect(restored.first?.value as? Value == value)
            // `.some` of an optional is archived as the value itself.
            let optional = Record(path: record.path, timestamp: record.timestamp, value: Optional(value))
            #expect(try RecordArchive.decode(RecordArchive.encode([optional])).first?.value as? Value == value)
        }
        try check(Self.sample(native))
    }

    @Test("A value of each type reads back from SQLite as itself: typed, from the records, and from the instance's body", arguments: NativeValueType.allCases)
    func sqlite(native: NativeValueType) throws {
        func check<Value: NativeDatabaseValue & Equatable>(_ value: Value) throws {
            let database = try SQLiteDatabase()
            let path = Path(model: 7, instance: 3, property: 2)
            database.set(InstanceStatus.created, for: Path(model: 7, instance: 3, property: PropertyKey.instanceId))
            database.set(value, for: path)
            let typed: Value? = database.get(path)
            #expect(typed == value)
            #expect(database.records(after: nil).last?.value as? Value == value)
            // Another type never reads it.
            let other: NoValue? = database.get(path)
            #expect(other == nil)
        }
        try check(Self.sample(native))
    }

    @Test("A filter on a property of each queryable type runs in SQL and finds the instance", arguments: NativeValueType.allCases.filter(\.isQueryable))
    func queryPushDown(native: NativeValueType) throws {
        let database = try SQLiteDatabase()
        let property = try #require(Self.property(native))
        property.write(NativeValueHolder.create(in: database, id: 1))
        _ = NativeValueHolder.create(in: database, id: 2)
        #expect(property.filter.pushed != nil)
        #expect(database.fetch(QueryDescriptor(where: property.filter)).map(\.id) == [1])
    }

    @Test("The asset scan finds no asset in a value of each type, optional or not, and knows it for native", arguments: NativeValueType.allCases)
    func assetScan(native: NativeValueType) throws {
        func check<Value: NativeDatabaseValue>(_ value: Value) throws {
            var assets = Set<Asset>()
            try AssetReferences.collect(value, into: &assets)
            try AssetReferences.collect(Optional(value), into: &assets)
            #expect(assets.isEmpty)
            #expect(NativeValueType(of: Optional(value)) == native)
        }
        try check(Self.sample(native))
    }
}
