import Foundation
import Pathbase
import PathbaseSQLite

/// What Studio's pages read from the file: names, instances and values as they are now or
/// were at a moment. Every read goes through the read-only `SQLiteDatabase`.
struct StudioReader: Sendable {

    let database: SQLiteDatabase

    /// The file's path, as given on the command line.
    let path: String

    /// Reads a value of a property of a listed instance: `nil` when the instance had none.
    typealias Values = [PropertyKey: Record]

    /// The name a page shows for a model: a collection's name, the `@Model` type's name the
    /// file's catalog records, or the model id.
    func modelName(_ model: ModelKey) -> String {
        if model == Replica.stateModel { return "replica state (model \(model))" }
        if model == ModelDescription.catalogModel { return "model catalog (model \(model))" }
        if let name = names(of: model).modelName { return "\(ValueText.short(name, limit: ValueText.nameLimit)) (model \(model))" }
        return "model \(model)"
    }

    /// A model's recorded type name alone (`Author`), or "model M".
    func typeName(_ model: ModelKey) -> String {
        names(of: model).modelName.map { ValueText.short($0, limit: ValueText.nameLimit) } ?? "model \(model)"
    }

    /// The name a page shows for a property: a collection's field name, the recorded
    /// `@Model` property name, "status", or the id.
    func propertyName(_ property: PropertyKey, of model: ModelKey) -> String {
        names(of: model).propertyName(property).map { ValueText.short($0, limit: ValueText.nameLimit) } ?? "property \(property)"
    }

    /// What the file records about a model: its collection, or its `@Model` type's
    /// description (property names, reference targets).
    func names(of model: ModelKey) -> RecordedNames {
        database.recordedNames(of: model)
    }

    /// Every record of an instance at or before `moment` (all when `nil`), oldest first.
    /// With `cut`, a string or bytes longer than a page shows are ``ValuePrefix``es of
    /// ``ValueText/shownPrefix``, cut in SQL: a page of a 10 MB value decodes only its start.
    func records(model: ModelKey, instance: InstanceKey, at moment: StudioMoment?, cut: Bool) throws -> [Record] {
        let all = try database.records(model: model, instance: instance, valuePrefix: cut ? ValueText.shownPrefix : nil)
        guard let moment else { return all }
        let limit = moment.timestamp
        return all.filter { $0.timestamp <= limit }
    }

    /// The value each property of an instance had at `moment` (now when `nil`), by property.
    func values(model: ModelKey, instance: InstanceKey, at moment: StudioMoment?) throws -> Values {
        if moment == nil {
            return Dictionary(try database.currentRecords(model: model, instance: instance).map { ($0.path.property, $0) }) { $1 }
        }
        // Whole: a table's filter compares them.
        return Self.newest(try records(model: model, instance: instance, at: moment, cut: false))
    }

    /// The newest record per property of records ordered oldest first.
    static func newest(_ records: [Record]) -> Values {
        var newest: Values = [:]
        for record in records where (newest[record.path.property]?.timestamp).map({ $0 < record.timestamp }) ?? true {
            newest[record.path.property] = record
        }
        return newest
    }
}

/// How pages print stored values, which they read without knowing the model types.
enum ValueText {

    /// The value as text: strings as they are, statuses by name, bytes by size.
    static func describe(_ value: any DatabaseValue) -> String {
        switch value {
        case let string as String: return string
        case let optional as String?: return optional ?? "nil"
        case let status as InstanceStatus: return "\(status)"
        case let data as Data: return "\(data.count) bytes"
        case let prefix as ValuePrefix:
            switch prefix.start {
            case .string(let start): return start
            case .data: return "\(prefix.byteCount) bytes"
            }
        default: return "\(value)"
        }
    }

    /// The size in bytes of the whole value that `described` (``describe(_:)`` of it) shows:
    /// a ``ValuePrefix`` knows its whole value's.
    static func byteCount(of value: any DatabaseValue, described: String) -> Int {
        (value as? ValuePrefix)?.byteCount ?? described.utf8.count
    }

    /// The value's Swift type, as stored (a ``ValuePrefix``'s: its whole value's).
    static func typeName(_ value: any DatabaseValue) -> String {
        guard let prefix = value as? ValuePrefix else { return String(describing: type(of: value)) }
        switch prefix.start {
        case .string: return String(describing: String.self)
        case .data: return String(describing: Data.self)
        }
    }

    /// At most this many bytes of a value are shown on a page where it stands alone (the
    /// instance's current values); the rest is one link away (``StudioServer``'s
    /// `/models/M/instances/I/properties/P`, streamed).
    static let shownBytes = 4096

    /// How many characters of a string (bytes of `Data`) pages read: one more than any cut
    /// of theirs keeps (at most ``shownBytes`` bytes, a character being at least one), so a
    /// value read cut to it is cut, and shown, as the whole value would be.
    static let shownPrefix = shownBytes + 1

    /// At most this many Unicode scalars of a name (a model's, a property's) are shown.
    static let nameLimit = 200

    /// At most `limit` Unicode scalars (not characters: one character can hold any number
    /// of combining scalars), with an ellipsis when cut.
    static func short(_ text: String, limit: Int = 80) -> String {
        cut(text, bytes: 4 * limit, scalars: limit).text
    }

    /// The start of `text` that fits in `bytes` bytes of UTF-8 and `scalars` Unicode
    /// scalars, cut between scalars, with an ellipsis when cut; and whether it was cut.
    static func cut(_ text: String, bytes: Int, scalars: Int = .max) -> (text: String, cut: Bool) {
        if text.utf8.count <= bytes, text.utf8.count <= scalars || text.unicodeScalars.count <= scalars { return (text, false) }
        var kept = String.UnicodeScalarView()
        var size = 0
        var count = 0
        for scalar in text.unicodeScalars {
            let length = UTF8.width(scalar)
            guard size + length <= bytes, count < scalars else { break }
            kept.append(scalar)
            size += length
            count += 1
        }
        return (String(kept) + "…", true)
    }
}
