import CPathbaseBodies
import Foundation
import GRDBSQLite
import Pathbase

/// Turns Swift values into (tag, value) column pairs and back.
///
/// Natively stored types (``NativeValue``) are bound and read directly. `Optional` is seen
/// through: `.some(x)` is stored as `x`, `.none` as ``ValueTag/null``. Every other
/// `Codable` value is JSON under ``ValueTag/codableBase`` + the id of its Swift type in the
/// `value_types` table, so a value reads back only as the type that wrote it — as in
/// memory, a `[String]` never reads as a `Set<String>`, and a value whose type changed
/// reads as `nil` (the migration rule) while its row stays untouched.
///
/// Used only under the owning ``SQLiteDatabase``'s lock.
final class ValueCodec: RowMirror {

    private let connection: OpaquePointer
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    private let insertType: Statement
    private let selectTypeId: Statement
    private let selectTypeName: Statement

    // Caches of the value_types table; cleared after a rollback (see TransactionState),
    // which may drop rows added since.
    private var idsByType: [ObjectIdentifier: Int64] = [:]
    private var idsByName: [String: Int64] = [:]
    private var namesById: [Int64: String] = [:]
    /// The last list of strings encoded, with its JSON: a collection writes its list of
    /// field keys with every struct it saves, the same list for every struct of a type, and
    /// encoding it again was a third of a save.
    private var lastStringList: (strings: [String], json: Data)?

    /// A stored `nil` as records return it. Any `Optional.none` would do: a nil optional
    /// casts to every optional type.
    static var storedNil: any DatabaseValue { String?.none }

    init(connection: OpaquePointer) throws(SQLiteDatabaseError) {
        self.connection = connection
        insertType = try Statement(sql: "INSERT INTO value_types(name) VALUES (?1) ON CONFLICT(name) DO NOTHING", connection: connection)
        selectTypeId = try Statement(sql: "SELECT id FROM value_types WHERE name = ?1", connection: connection)
        selectTypeName = try Statement(sql: "SELECT name FROM value_types WHERE id = ?1", connection: connection)
        encoder.outputFormatting = [.sortedKeys]
    }

    func finalize() {
        insertType.finalize()
        selectTypeId.finalize()
        selectTypeName.finalize()
    }

    /// Forgets cached type ids: the rows of types added since may be gone.
    func rowsRolledBack() {
        idsByType.removeAll()
        idsByName.removeAll()
        namesById.removeAll()
    }

    // MARK: Writing

    /// Encodes a value as its tag and the value SQLite stores.
    func encode<Value: DatabaseValue>(_ value: Value, for path: Path) throws(SQLiteDatabaseError) -> (tag: Int64, value: StoredValue) {
        if let native = value as? any NativeValue {
            // Also unwraps `.some(x)` of a native type.
            return (type(of: native).tag.rawValue, native.stored)
        }
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedDatabaseValue else { return (ValueTag.null.rawValue, .null) }
            return try encode(wrapped, for: path)
        }
        if let encoded = value as? EncodedValue {
            let id = try requireTypeId(try typeId(named: encoded.typeName, creating: true))
            return (ValueTag.codableBase + id, .blob(encoded.json))
        }
        // Only a list of strings is reused: its `==` implies the same JSON, which a type's
        // own `==` need not (one that ignores a field would store a stale encoding).
        let strings: [String]? = Value.self == [String].self ? unsafeBitCast(value, to: [String].self) : nil
        let json: Data
        if let strings, let last = lastStringList, last.strings == strings {
            json = last.json
        } else {
            do {
                json = try encoder.encode(value)
            } catch {
                throw .valueEncoding(path: path, reason: "\(error)")
            }
            if let strings { lastStringList = (strings, json) }
        }
        let id = try requireTypeId(try typeId(of: Value.self, creating: true))
        return (ValueTag.codableBase + id, .blob(json))
    }

    // MARK: Reading

    /// Reads the value in columns (`tagColumn`, `valueColumn`) of a row (a statement's, or
    /// one kept in memory) as `Value`; `nil` if it was stored as another type or no longer
    /// decodes. Throws when SQLite fails to read the table of value types.
    func decode<Value: DatabaseValue>(_ type: Value.Type, from statement: some ValueColumns, tag tagColumn: Int32, value valueColumn: Int32) throws(SQLiteDatabaseError) -> Value? {
        let tagValue = statement.int64(at: tagColumn)
        if tagValue >= ValueTag.codableBase {
            let base = unwrappedType(Value.self)
            guard let id = try typeId(of: base, creating: false), id == tagValue - ValueTag.codableBase,
                let value = decodeJSON(base, from: statement, at: valueColumn)
            else { return nil }
            return value as? Value
        }
        // The common property types without a dynamic cast from `any NativeValue`, which
        // costs more than the rest of decoding when `Value` is not specialized.
        switch tagValue {
        case ValueTag.int.rawValue where Value.self == Int.self: return read(Int.self, as: Value.self, from: statement, at: valueColumn)
        case ValueTag.string.rawValue where Value.self == String.self: return read(String.self, as: Value.self, from: statement, at: valueColumn)
        case ValueTag.double.rawValue where Value.self == Double.self: return read(Double.self, as: Value.self, from: statement, at: valueColumn)
        case ValueTag.bool.rawValue where Value.self == Bool.self: return read(Bool.self, as: Value.self, from: statement, at: valueColumn)
        case ValueTag.status.rawValue where Value.self == InstanceStatus.self: return read(InstanceStatus.self, as: Value.self, from: statement, at: valueColumn)
        default: break
        }
        guard let tag = ValueTag(rawValue: tagValue) else { return nil }
        guard let nativeType = tag.nativeType else {
            return (Value.self as? any OptionalValue.Type)?.noneValue as? Value
        }
        guard let native = nativeType.read(from: statement, at: valueColumn) else { return nil }
        return native as? Value
    }

    /// Reads a `Native` as `Value`, which the caller checked is the same type.
    @inline(__always)
    private func read<Native: NativeValue, Value>(_ native: Native.Type, as type: Value.Type, from statement: some ValueColumns, at column: Int32) -> Value? {
        Native.read(from: statement, at: column).map { unsafeBitCast($0, to: Value.self) }
    }

    /// ``decode(_:from:tag:value:)`` of an entry of an instance's body: the common property
    /// types are read straight from the entry's fields. Reading them through
    /// ``ValueColumns`` copied the entry at every call and cost as much as the rest of a
    /// listed property's read.
    @inline(__always)
    func decode<Value: DatabaseValue>(_ type: Value.Type, entry columns: BodyEntryColumns) throws(SQLiteDatabaseError) -> Value? {
        let entry = columns.entry
        switch entry.tag {
        case ValueTag.int.rawValue where Value.self == Int.self && entry.kind == PATHBASE_KIND_INTEGER:
            return unsafeBitCast(Int(truncatingIfNeeded: entry.integer), to: Value.self)
        case ValueTag.string.rawValue where Value.self == String.self && entry.kind == PATHBASE_KIND_TEXT:
            let bytes = UnsafeRawBufferPointer(start: entry.bytes, count: Int(entry.length))
            return unsafeBitCast(String(decoding: bytes, as: UTF8.self), to: Value.self)
        case ValueTag.double.rawValue where Value.self == Double.self && entry.kind == PATHBASE_KIND_REAL:
            return unsafeBitCast(entry.real, to: Value.self)
        case ValueTag.bool.rawValue where Value.self == Bool.self && entry.kind == PATHBASE_KIND_INTEGER:
            return unsafeBitCast(entry.integer != 0, to: Value.self)
        case ValueTag.status.rawValue where Value.self == InstanceStatus.self && entry.kind == PATHBASE_KIND_INTEGER:
            return UInt8(exactly: entry.integer).flatMap(InstanceStatus.init(rawValue:)).map { unsafeBitCast($0, to: Value.self) }
        default:
            return try decode(type, from: columns, tag: 0, value: 1)
        }
    }

    /// Reads the value in columns (`tagColumn`, `valueColumn`) as the type that wrote it, or
    /// as an ``EncodedValue`` if that type has not been used in this process. Throws when
    /// SQLite fails to read the table of value types.
    func anyValue(from statement: some ValueColumns, tag tagColumn: Int32, value valueColumn: Int32) throws(SQLiteDatabaseError) -> any DatabaseValue {
        let tagValue = statement.int64(at: tagColumn)
        if tagValue >= ValueTag.codableBase {
            let id = tagValue - ValueTag.codableBase
            // A type id missing from the table (a damaged file) still names the record.
            let name = try typeName(of: id) ?? "#\(id)"
            if let type = ValueTypeNames.shared.type(named: name), let value = decodeJSON(type, from: statement, at: valueColumn) {
                return value
            }
            return EncodedValue(typeName: name, json: statement.data(at: valueColumn))
        }
        guard let tag = ValueTag(rawValue: tagValue) else {
            return EncodedValue(typeName: "#\(tagValue)", json: statement.data(at: valueColumn))
        }
        guard let nativeType = tag.nativeType else { return ValueCodec.storedNil }
        return nativeType.read(from: statement, at: valueColumn) ?? ValueCodec.storedNil
    }

    private func decodeJSON<Value: DatabaseValue>(_ type: Value.Type, from statement: some ValueColumns, at column: Int32) -> Value? {
        // Not a storage failure: the bytes were read. JSON that no longer decodes as the type
        // (its `Codable` shape changed) is "not a `Value`", which `get` answers with `nil`.
        try? decoder.decode(type, from: statement.data(at: column))
    }

    // MARK: Type ids

    /// The id of a `Codable` type in `value_types`; with `creating`, adds it when missing.
    private func typeId(of type: any DatabaseValue.Type, creating: Bool) throws(SQLiteDatabaseError) -> Int64? {
        let key = ObjectIdentifier(type)
        if let id = idsByType[key] { return id }
        let name = String(reflecting: type)
        ValueTypeNames.shared.register(type, name: name)
        guard let id = try typeId(named: name, creating: creating) else { return nil }
        idsByType[key] = id
        return id
    }

    private func typeId(named name: String, creating: Bool) throws(SQLiteDatabaseError) -> Int64? {
        if let id = idsByName[name] { return id }
        var id = try lookUpTypeId(named: name)
        if id == nil, creating {
            insertType.bind(name, at: 1)
            let code = insertType.step()
            insertType.reset()
            guard code == SQLITE_DONE else { throw lastError(code) }
            id = try lookUpTypeId(named: name)
        }
        if let id {
            idsByName[name] = id
            namesById[id] = name
        }
        return id
    }

    private func requireTypeId(_ id: Int64?) throws(SQLiteDatabaseError) -> Int64 {
        guard let id else { throw .sqlite(code: SQLITE_ERROR, message: "could not record the value type") }
        return id
    }

    private func lookUpTypeId(named name: String) throws(SQLiteDatabaseError) -> Int64? {
        selectTypeId.bind(name, at: 1)
        defer { selectTypeId.reset() }
        switch selectTypeId.step() {
        case SQLITE_ROW: return selectTypeId.int64(at: 0)
        case SQLITE_DONE: return nil
        case let code: throw lastError(code)
        }
    }

    private func typeName(of id: Int64) throws(SQLiteDatabaseError) -> String? {
        if let name = namesById[id] { return name }
        selectTypeName.bind(id, at: 1)
        defer { selectTypeName.reset() }
        switch selectTypeName.step() {
        case SQLITE_ROW:
            let name = selectTypeName.string(at: 0)
            namesById[id] = name
            idsByName[name] = id
            return name
        case SQLITE_DONE: return nil
        case let code: throw lastError(code)
        }
    }

    private func lastError(_ code: Int32) -> SQLiteDatabaseError {
        .sqlite(code: code, message: String(cString: sqlite3_errmsg(connection)))
    }
}
