import Foundation

// A history database written for StateModel implements three requirements by date
// (`get(_:at:)`, `set(_:for:at:)`, `all(model:at:where:)`); Pathbase's own implement them by
// Timestamp. Each set has defaults here in terms of the other, so either kind of database
// conforms. The defaults that a StateModel-style database relies on are deprecated: its
// conformance gets a warning that names what Pathbase wants implemented instead.
//
// A type that implements neither set would call the two sets of defaults in turn forever:
// every Pathbase database implements the timestamp-based set (the compiler would warn at
// any that used a deprecated default), and a StateModel database the date-based one.

extension HistoryDatabase {

    // MARK: StateModel's requirements, from Pathbase's

    /// The newest value at a path written at or before `date`: `get(_:at:)` with
    /// `Timestamp(latestAt: date)`.
    @available(*, deprecated, message: "Pathbase reads history by Timestamp: use get(_:at:) with Timestamp(latestAt: date)")
    @_disfavoredOverload
    public func get<Value: DatabaseValue>(_ path: Path, at date: Date?) -> Timestamped<Value>? {
        get(path, at: date.map(Timestamp.init(latestAt:)))
    }

    /// Stores a value written at `date`, or stamped by `clock` when `date` is `nil`.
    @available(*, deprecated, message: "Pathbase stamps writes with a Timestamp: use set(_:for:) or set(_:for:timestamp:)")
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, at date: Date?) {
        set(value, for: path, timestamp: date.map(Timestamp.init(writtenAt:)) ?? clock.now())
    }

    /// Every instance of a model with a status at `date`, with its status and when that was
    /// set.
    @available(*, deprecated, message: "Pathbase lists instances at a Timestamp: use all(model:at:where:) with Timestamp(latestAt: date)")
    @_disfavoredOverload
    public func all<T>(model: ModelKey, at date: Date?, where predicate: (_ instance: InstanceKey, _ status: InstanceStatus, _ date: Date) -> T?) -> [T] {
        let timestamp = date.map(Timestamp.init(latestAt:))
        return all(model: model, at: timestamp) { instance, status in
            let set: Timestamped<InstanceStatus>? = get(.status(model: model, instance: instance), at: timestamp)
            return predicate(instance, status, set?.timestamp.date ?? .distantPast)
        }
    }

    // MARK: Pathbase's requirements, from StateModel's

    /// A database written for StateModel reads by date: the timestamp's wall-clock time.
    @available(*, deprecated, message: "Implement get(_:at:) with a Timestamp? parameter, which Pathbase uses for history, undo and sync")
    public func get<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp?) -> Timestamped<Value>? {
        get(path, at: timestamp?.latestDate)
    }

    /// A database written for StateModel stores the timestamp's wall-clock time; the
    /// counter and replica of the timestamp are lost.
    @available(*, deprecated, message: "Implement set(_:for:timestamp:), which keeps the whole Timestamp")
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        set(value, for: path, at: timestamp.date)
    }

    /// A database written for StateModel lists instances by date.
    @available(*, deprecated, message: "Implement all(model:at:where:) with a Timestamp? parameter")
    public func all<T>(model: ModelKey, at timestamp: Timestamp?, where predicate: (_ instance: InstanceKey, _ status: InstanceStatus) -> T?) -> [T] {
        all(model: model, at: timestamp?.latestDate) { instance, status, _ in predicate(instance, status) }
    }

    /// The clock of databases written for StateModel, which have none: one for all of them,
    /// stamping with replica 0 like the history StateModel exports.
    @available(*, deprecated, message: "Implement 'var clock: HybridLogicalClock', which stamps the database's writes")
    public var clock: HybridLogicalClock { StateModelDatabaseRecords.clock }

    /// A database written for StateModel keeps no list of its records: the newest record of
    /// the path (from `get(_:at:)`, as the type its model declares), if any.
    @available(*, deprecated, message: "Implement records(at:), which lists every record of a path; Pathbase's undo and editing contexts read it")
    public func records(at path: Path) -> [Record] {
        StateModelDatabaseRecords.latestRecord(at: path, in: self).map { [$0] } ?? []
    }

    /// A database written for StateModel keeps no list of its records: the newest record of
    /// every path of every instance of the models this process knows (``ModelRegistry``)
    /// written after `timestamp`, oldest first. It reads the whole database on each call.
    @available(*, deprecated, message: "Implement records(after:limit:), which lists the records written after a timestamp; Pathbase's sync reads it")
    public func records(after timestamp: Timestamp?, limit: Int?) -> [Record] {
        StateModelDatabaseRecords.records(after: timestamp, limit: limit, in: self)
    }
}

extension Timestamp {

    /// The latest date within this timestamp's microsecond: a date-based read at it sees
    /// every write of that microsecond, as a read at the timestamp does.
    var latestDate: Date {
        Date(timeIntervalSince1970: (Double(time) + 0.999) / 1_000_000)
    }

    /// The timestamp of a write at `date`, as StateModel stamped writes: its microsecond,
    /// counter 0, replica 0.
    init(writtenAt date: Date) {
        self.init(time: Timestamp.microseconds(of: date))
    }
}

/// The records of a history database written for StateModel, which can only read values.
enum StateModelDatabaseRecords {

    /// The clock of all databases written for StateModel.
    static let clock = HybridLogicalClock(replica: 0)

    /// The newest record at a path, read as the type the path's model declares.
    static func latestRecord(at path: Path, in database: some HistoryDatabase) -> Record? {
        let type: (any DatabaseValue.Type)? = path.isStatus ? InstanceStatus.self : ModelRegistry.shared.type(for: path.model)?._$propertyType(path.property)
        guard let type else { return nil }
        return latestRecord(at: path, as: type, in: database)
    }

    private static func latestRecord<Value: DatabaseValue>(at path: Path, as type: Value.Type, in database: some HistoryDatabase) -> Record? {
        let value: Timestamped<Value>? = database.get(path, at: nil as Timestamp?)
        return value.map { Record(path: path, timestamp: $0.timestamp, value: $0.value) }
    }

    /// The newest record of every path of every known model's instances after `timestamp`,
    /// oldest first (ties in path order, as sync cursors order them), at most `limit`.
    static func records(after timestamp: Timestamp?, limit: Int?, in database: some HistoryDatabase) -> [Record] {
        var records: [Record] = []
        for type in ModelRegistry.shared.knownTypes {
            let properties = propertyIds(of: type)
            let instances: [InstanceKey] = database.all(model: type.modelId, at: nil as Timestamp?) { instance, _ in instance }
            for instance in instances {
                for property in [PropertyKey.instanceId] + properties {
                    let path = Path(model: type.modelId, instance: instance, property: property)
                    if let record = latestRecord(at: path, in: database), timestamp.map({ $0 < record.timestamp }) ?? true {
                        records.append(record)
                    }
                }
            }
        }
        records.sort { $0.timestamp != $1.timestamp ? $0.timestamp < $1.timestamp : $0.path < $1.path }
        guard let limit else { return records }
        return Array(records.prefix(max(0, limit)))
    }

    /// The ids of a model's stored properties, from the `PropertyId` enum `@Model` generates.
    private static func propertyIds(of type: any ModelProtocol.Type) -> [PropertyKey] {
        guard let type = type as? any ModelWithPropertyIds.Type else { return [] }
        return propertyIds(ofModel: type)
    }

    private static func propertyIds<Model: ModelWithPropertyIds>(ofModel type: Model.Type) -> [PropertyKey] {
        Model.PropertyId.allCases.map(\.rawValue)
    }
}
