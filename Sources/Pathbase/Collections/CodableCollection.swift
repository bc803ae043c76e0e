/// Plain `Codable` structs stored in a database under a name: each top-level coding key one
/// property path, next to `@Model` classes, with history, views, undo, observation, export
/// and synchronization working as for models.
///
/// ```swift
/// struct User: Codable, Identifiable { var id: UUID; var name: String; var age: Int?; var tags: [String] }
///
/// let users = database.collection(User.self, name: "users", indexes: [\.name, \.age])
/// try users.save(User(id: UUID(), name: "Ada", age: 36, tags: []))
/// let adults = try users.fetch(where: \.age >= 18 && \.name != "", sortedBy: \.name, limit: 20)
/// ```
///
/// **Paths.** The model key derives from the collection's name, the instance key from the
/// struct's id (``CollectionIdentifier``), the property key from the name and the coding key
/// — never from the order things were registered — so replicas agree without talking.
/// Collisions of derived keys throw ``CollectionError``; nothing is merged.
///
/// **Saving.** ``save(_:)-(Element)`` writes only the fields that differ: from the struct as
/// this collection last fetched or saved it when it has, else from what is stored. A field
/// another replica changed meanwhile is not overwritten by a stale copy. The fetched fields
/// are kept for every struct of the latest fetch or save, however many, and for at least
/// the last 10 000. `replace(_:)` writes every field and clears keys the struct no longer
/// has. Saving many structs is one batch (one transaction on `SQLiteDatabase`).
///
/// **Reading.** A key without a stored value reads as `nil` for an optional field, as the
/// declared default (`defaults:`), or throws ``CollectionError/missingField(collection:id:key:)``
/// — never a silently missing struct. Values of keys the struct no longer has stay stored.
///
/// **Deleting** marks an instance deleted, as for models: its values stay in history.
public final class CodableCollection<Element: Codable & Identifiable>: @unchecked Sendable where Element.ID: CollectionIdentifier {
    // @unchecked: the database is used as its own threading rules allow; the snapshots
    // guard themselves.

    /// The database the structs are stored in.
    public let database: any Database

    /// The collection's name, from which its paths derive.
    public var name: String { layout.name }

    /// The model key of the collection's paths.
    public var modelKey: ModelKey { layout.model }

    let layout: CollectionLayout

    /// The merge policy of each field that has one other than ``MergePolicy/newestWins``, by
    /// coding key (see ``Database/collection(_:name:indexes:defaults:merge:)``).
    public var mergePolicies: [String: MergePolicy] {
        var policies: [String: MergePolicy] = [:]
        for key in layout.mergedKeys {
            if let field = layout.mergedFields[layout.property(forKey: key)] { policies[key] = field.policy }
        }
        return policies
    }

    /// The coding keys of the declared indexes, or why a declared key path is not a field.
    let indexedKeys: Result<[String], CollectionError>

    /// The fields of the structs fetched or saved, the base that `save` compares with.
    let snapshots = FieldSnapshotCache()

    /// The content version at which the collection last found its name in the database's
    /// catalog: a query that follows with nothing written in between skips reading the name
    /// again (one value read per query: a twentieth of an indexed query of ten matches).
    private let catalogVerifiedAt = Locked<ContentVersion?>(nil)

    init(database: any Database, name: String, indexes: [PartialKeyPath<Element>], defaults: [String: any DatabaseValue], mergedFields: [String: any MergedField] = [:]) {
        self.database = database
        let fields = FieldKeys.of(Element.self)
        self.layout = CollectionLayout(name: name, fieldNames: fields.fields.map(\.name), defaults: defaults, mergedFields: mergedFields)
        for field in fields.fields {
            let property = layout.property(forKey: field.name)
            // A merged field travels as its policy's state, which applying a pulled record
            // must know by name to merge it.
            if let merged = layout.mergedFields[property] {
                MergeableTypes.register(merged.stateType)
                CollectionFieldTypes.shared.register(merged.stateType, for: property)
            } else if let type = field.type as? any DatabaseValue.Type {
                CollectionFieldTypes.shared.register(type, for: property)
            }
        }
        self.indexedKeys = Result { () throws(CollectionError) -> [String] in
            try indexes.map { keyPath throws(CollectionError) in try fields.key(for: keyPath, collection: name) }
        }
    }

    // MARK: Saving

    /// Stores a struct: creates it, or writes the fields that changed.
    ///
    /// ```swift
    /// var user = try users.fetch(id: id)!
    /// user.age = 40
    /// try users.save(user) // writes `age` only
    /// ```
    public func save(_ element: Element) throws {
        try save([element])
    }

    /// Stores several structs in one batch: all of them, or (on a ``BatchDatabase``) none.
    ///
    /// ```swift
    /// try users.save([ada, grace, linus])
    /// ```
    ///
    /// Every struct is encoded and checked before anything is written.
    public func save(_ elements: [Element]) throws {
        try write(elements, replacing: false)
    }

    /// Stores a struct whole: writes every field, and clears stored keys it no longer has.
    ///
    /// ```swift
    /// try users.replace(user)
    /// ```
    public func replace(_ element: Element) throws {
        try write([element], replacing: true)
    }

    /// Stores several structs whole, in one batch.
    public func replace(_ elements: [Element]) throws {
        try write(elements, replacing: true)
    }

    private struct PreparedWrite {
        let instance: InstanceKey
        let origin: String?
        let fields: [(key: String, value: FieldValue)]
    }

    private func write(_ elements: [Element], replacing: Bool) throws {
        // A declared index that is no field fails before anything is written.
        _ = try indexedKeys.get()
        var prepared: [PreparedWrite] = []
        prepared.reserveCapacity(elements.count)
        snapshots.expect(elements.count)
        // Structs of one type mostly encode the same keys: each list is checked once.
        var checkedKeys: [String] = []
        for element in elements {
            let fields = try FieldEncoder.fields(of: element, collection: name)
            if !fields.elementsEqual(checkedKeys, by: { $0.key == $1 }) {
                try layout.checkKeys(fields.lazy.map { $0.key })
                checkedKeys = fields.map { $0.key }
            }
            if !layout.mergedFields.isEmpty { try layout.checkMergedValues(of: fields) }
            let origin = Element.ID.isExactInstanceKey ? nil : String(describing: element.id)
            prepared.append(PreparedWrite(instance: element.id.collectionInstanceKey, origin: origin, fields: fields))
        }
        let outer = database.currentRollbackMark
        var inside: RollbackMark?
        var stored: [(instance: InstanceKey, fields: FieldSnapshot)] = []
        stored.reserveCapacity(prepared.count)
        let recorded = FieldSnapshotStorage()
        // Reads inside the batch share its transaction; every check passes before the first write.
        try database.inBatchIfSupported {
            inside = database.currentRollbackMark
            // The name is registered in the same transaction as the writes: if an enclosing
            // batch rolls back, both are gone, and the next save registers it again.
            try layout.checkCatalog(in: database, registering: true)
            // Each instance's status and keys: one range of the file per instance, read
            // once for the checks and the writes.
            database.queryPushdown?.willReadCurrentValues(of: layout.model, instances: prepared.map(\.instance))
            let states = try check(prepared)
            // Indices, not `zip`: unspecialized for the app's struct, each step of a zip of
            // two arrays cost more than checking the struct.
            for index in prepared.indices {
                stored.append((prepared[index].instance, store(prepared[index], state: states[index], replacing: replacing, at: inside, recordingInto: recorded)))
            }
        }
        // The batch committed, or joined an enclosing one that may still roll back: then
        // the bases hold only until the database takes writes back.
        let seen = inside.map { RollbackMark(mayRollBack: outer?.mayRollBack ?? false, rollbacks: $0.rollbacks) }
        snapshots.remember(stored, seenAt: seen)
        try createIndexes()
    }

    /// What is stored of an instance before a save writes it.
    private struct StoredState {
        let status: InstanceStatus?
        let keys: [String]
    }

    /// Checks prepared writes against what is stored: no id collides with another. Returns
    /// each one's stored state, `nil` for an instance that an earlier write of the same
    /// batch writes first (read again when its turn comes).
    private func check(_ prepared: [PreparedWrite]) throws(CollectionError) -> [StoredState?] {
        var seen: [InstanceKey: String?] = [:]
        seen.reserveCapacity(prepared.count)
        var states: [StoredState?] = []
        states.reserveCapacity(prepared.count)
        for write in prepared {
            if let other = seen[write.instance] {
                if let origin = write.origin, let other, other != origin {
                    throw .idCollision(collection: name, id: origin, storedId: other)
                }
                states.append(nil)
                continue
            }
            seen[write.instance] = write.origin
            let state = storedState(of: write.instance)
            states.append(state)
            try layout.checkKeys(state.keys)
            if let origin = write.origin, let stored = layout.storedOrigin(in: database, instance: write.instance), stored != origin {
                throw .idCollision(collection: name, id: origin, storedId: stored)
            }
        }
        return states
    }

    private func storedState(of instance: InstanceKey) -> StoredState {
        StoredState(status: database.get(.status(model: layout.model, instance: instance)), keys: layout.storedKeys(in: database, instance: instance))
    }

    /// Writes one prepared struct; its status last, so an observer that sees it created
    /// reads every field. Returns its fields, the base of its next save once stored,
    /// recorded into `recorded` (shared by the structs of one save).
    private func store(_ write: PreparedWrite, state: StoredState?, replacing: Bool, at mark: RollbackMark?, recordingInto recorded: FieldSnapshotStorage) -> FieldSnapshot {
        let statusPath = Path.status(model: layout.model, instance: write.instance)
        let state = state ?? storedState(of: write.instance)
        let status = state.status
        let isActive = status == .created
        // A deleted instance saved again is stored whole, like a new one.
        let replaces = replacing || status == .deleted
        // Keys without a status (a partial pull) are not this struct's.
        let storedKeys = status == nil ? [] : state.keys
        let hasMergedFields = !layout.mergedFields.isEmpty
        // Merged fields land the change since the base also when the struct is replaced.
        let base = isActive && (!replaces || hasMergedFields) ? snapshots.base(for: write.instance, at: mark) : nil
        var snapshot = FieldSnapshot(in: recorded)
        for field in write.fields {
            let property = layout.property(forKey: field.key)
            let path = layout.path(write.instance, property)
            snapshot.record(field.value.value, for: property)
            if hasMergedFields, let merged = layout.mergedFields[property] {
                let old = base?[property]
                if let old, field.value.isEqual(to: old) { continue }
                merged.write(field.value.value, changedFrom: old, to: database, at: path)
                continue
            }
            if isActive, !replacing {
                if let old = base?[property] {
                    if field.value.isEqual(to: old) { continue }
                } else if field.value.isStored(in: database, at: path) {
                    continue
                }
            }
            field.value.write(to: database, at: path)
        }
        let keys = write.fields.map { $0.key }
        if replaces {
            for key in storedKeys where !keys.contains(key) {
                database.set(NoValue(), for: layout.path(write.instance, layout.property(forKey: key)))
            }
        }
        // A new struct's keys are its own (no set to build: a tenth of saving new structs).
        let newKeys = replaces || storedKeys.isEmpty ? keys.sorted() : Array(Set(storedKeys).union(keys)).sorted()
        if newKeys != storedKeys {
            database.set(newKeys, for: layout.path(write.instance, CollectionKeys.fieldsProperty))
        }
        if let origin = write.origin, status == nil {
            database.set(origin, for: layout.path(write.instance, CollectionKeys.originProperty))
        }
        if !isActive {
            database.set(InstanceStatus.created, for: statusPath)
        }
        return snapshot
    }

    // MARK: Reading

    /// The struct with an id, or `nil` when none is stored (or it was deleted).
    ///
    /// ```swift
    /// if let user = try users.fetch(id: id) { print(user.name) }
    /// ```
    ///
    /// Throws ``CollectionError`` when the stored fields do not decode.
    public func fetch(id: Element.ID) throws -> Element? {
        let instance = id.collectionInstanceKey
        let mark = database.currentRollbackMark
        return try database.inReadIfSupported { () throws -> Element? in
            try checkCatalog()
            // Status, origin and fields: one range of the file instead of a lookup each.
            let pushdown = database.queryPushdown
            pushdown?.willReadCurrentValues(of: layout.model, instances: [instance])
            let status: InstanceStatus? = database.get(.status(model: layout.model, instance: instance))
            guard status == .created else { return nil }
            if !Element.ID.isExactInstanceKey, layout.storedOrigin(in: database, instance: instance) != String(describing: id) {
                return nil
            }
            let match = try decode(instance, using: pushdown)
            remember([match], seenAt: mark)
            return match.element
        }
    }

    /// Every stored struct, in instance key order.
    ///
    /// ```swift
    /// let everyone = try users.fetch()
    /// ```
    public func fetch() throws -> [Element] {
        let mark = database.currentRollbackMark
        return try database.inReadIfSupported {
            try checkCatalog()
            // Every value is read: the statuses come from the same pass over the file.
            let pushdown = database.queryPushdown
            pushdown?.willReadCurrentValues(of: layout.model, instances: nil)
            let decoded = try decodeStructs(layout.activeInstances(in: database), using: pushdown)
            snapshots.remember(decoded.bases, seenAt: mark)
            return decoded.elements
        }
    }

    /// Structs and the fields they were decoded from (the bases of their next saves), in
    /// two arrays rather than one of `CollectionMatch`: unspecialized for the app's struct,
    /// each use of that generic type looked up its metadata, three times per struct.
    struct DecodedStructs {
        var elements: [Element] = []
        var bases: [(instance: InstanceKey, fields: FieldSnapshot)] = []
    }

    /// Decodes the structs stored under these instance keys, in order; each from the values
    /// `pushdown` keeps when it does (see ``decode(_:using:with:)``).
    func decodeStructs(_ instances: [InstanceKey], using pushdown: (any QueryPushdownDatabase)?) throws -> DecodedStructs {
        snapshots.expect(instances.count)
        var decoded = DecodedStructs()
        decoded.elements.reserveCapacity(instances.count)
        decoded.bases.reserveCapacity(instances.count)
        // A loop, not a closure: appending to arrays captured by a closure, unspecialized
        // for the app's struct, looked up the array's type metadata at every append.
        let decoder = makeDecoder(expecting: instances.count)
        defer { decoder.close() }
        for instance in instances {
            let (element, fields) = try decode(instance, using: pushdown, with: decoder)
            decoded.elements.append(element)
            decoded.bases.append((instance, fields))
        }
        return decoded
    }

    /// A decoder for the `count` structs of one fetch, whose snapshots share one storage.
    /// Close it (``FieldDecoder/close()``) when the fetch is done: its kept container
    /// holds it.
    func makeDecoder(expecting count: Int) -> FieldDecoder {
        let recorded = FieldSnapshotStorage()
        recorded.reserveCapacity(count * layout.fieldCount)
        return FieldDecoder(layout: layout, database: database, snapshots: recorded)
    }

    /// Decodes the struct stored under an instance key, with the fields it read.
    func decode(_ instance: InstanceKey, using pushdown: (any QueryPushdownDatabase)? = nil) throws -> CollectionMatch<Element> {
        let decoder = makeDecoder(expecting: 1)
        defer { decoder.close() }
        let (element, fields) = try decode(instance, using: pushdown, with: decoder)
        return CollectionMatch(instance: instance, element: element, fields: fields)
    }

    /// Decodes the struct stored under an instance key, with the fields it read, using the
    /// decoder of the structs of one fetch. Its values are read together when `pushdown`
    /// keeps them for the running transaction (after `willReadCurrentValues`), else one
    /// `get` each.
    func decode(_ instance: InstanceKey, using pushdown: (any QueryPushdownDatabase)?, with decoder: FieldDecoder) throws -> (element: Element, fields: FieldSnapshot) {
        decoder.begin(instance, values: pushdown?.keptValues(of: layout.model, instance: instance))
        defer { decoder.end() }
        do {
            let element = try Element(from: decoder)
            return (element, decoder.snapshot)
        } catch let error as CollectionError {
            throw error
        } catch let error as DecodingError {
            throw CollectionError.undecodableField(collection: name, id: decoder.instanceDescription, key: error.firstKey ?? "", reason: String(describing: error))
        }
    }

    /// Keeps the fields of structs handed to the app as the bases of their next saves, as
    /// seen at `mark` (the database's before the read transaction that read them began).
    /// Only those: a struct decoded to evaluate a filter and left out was not fetched.
    func remember(_ matches: [CollectionMatch<Element>], seenAt mark: RollbackMark?) {
        var bases: [(instance: InstanceKey, fields: FieldSnapshot)] = []
        bases.reserveCapacity(matches.count)
        for match in matches { bases.append((match.instance, match.fields)) }
        snapshots.remember(bases, seenAt: mark)
    }

    // MARK: Deleting

    /// Deletes the struct with an id (its values stay in history); nothing when none is
    /// stored.
    ///
    /// ```swift
    /// try users.delete(id: id)
    /// ```
    public func delete(id: Element.ID) throws {
        try checkCatalog()
        let instance = id.collectionInstanceKey
        if !Element.ID.isExactInstanceKey, layout.storedOrigin(in: database, instance: instance) != String(describing: id) {
            return
        }
        try delete(instances: [instance])
    }

    /// Deletes a struct.
    public func delete(_ element: Element) throws {
        try delete(id: element.id)
    }

    /// Deletes every stored struct, in one batch.
    ///
    /// ```swift
    /// try users.removeAll()
    /// ```
    public func removeAll() throws {
        try checkCatalog()
        try delete(instances: layout.activeInstances(in: database))
    }

    func delete(instances: [InstanceKey]) throws {
        try database.inBatchIfSupported {
            for instance in instances {
                let path = Path.status(model: layout.model, instance: instance)
                let status: InstanceStatus? = database.get(path)
                guard status == .created else { continue }
                database.set(InstanceStatus.deleted, for: path)
                snapshots.forget(instance)
            }
        }
    }

    // MARK: Catalog

    /// Checks that no other collection name owns the model key. Read again unless the
    /// database tells that nothing changed since it was last found right
    /// (``QueryPushdownDatabase/contentVersion``): a write, a pull or a rollback in between
    /// makes it read again. Fetches call it inside their read transaction, where it shares
    /// their snapshot of the file and costs no transaction of its own.
    func checkCatalog() throws(CollectionError) {
        let version = database.queryPushdown?.contentVersion
        if let version, catalogVerifiedAt.current == version { return }
        try layout.checkCatalog(in: database, registering: false)
        if let version { catalogVerifiedAt.withLock { $0 = version } }
    }

    /// Asks a database that keeps indexes for one per declared key (a database creates each
    /// once; one created in a batch that rolled back is created again here).
    func createIndexes() throws {
        let keys = try indexedKeys.get()
        guard !keys.isEmpty, let indexing = database.queryPushdown as? any ValueIndexingDatabase else { return }
        for key in keys {
            try indexing.createValueIndex(model: layout.model, property: layout.property(forKey: key))
        }
    }
}

extension DecodingError {
    /// The top-level key the error happened under.
    var firstKey: String? {
        let context: DecodingError.Context? =
            switch self {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context): context
            @unknown default: nil
            }
        return context?.codingPath.first?.stringValue
    }
}

extension Database {

    /// The collection of `Element` structs named `name` (the type's name by default).
    ///
    /// ```swift
    /// let users = database.collection(User.self)                // zero setup
    /// let people = database.collection(User.self, name: "people", indexes: [\.name, \.age])
    /// ```
    ///
    /// Nothing is written until the first save. `indexes` names top-level fields that a
    /// database keeping indexes (`SQLiteDatabase`) indexes; every field can be queried
    /// either way. `defaults` gives values for keys that stored structs lack (a field added
    /// later), by coding key.
    public func collection<Element: Codable & Identifiable>(
        _ type: Element.Type,
        name: String? = nil,
        indexes: [PartialKeyPath<Element>] = [],
        defaults: [String: any DatabaseValue] = [:]
    ) -> CodableCollection<Element> where Element.ID: CollectionIdentifier {
        CodableCollection(database: self, name: name ?? String(describing: Element.self), indexes: indexes, defaults: defaults)
    }

    /// The collection of `Element` structs named `name`, whose fields named in `merge`
    /// combine concurrent writes by a ``MergePolicy``, as `@Model` properties with that
    /// policy do.
    ///
    /// ```swift
    /// struct Post: Codable, Identifiable { var id: UUID; var likes: Int; var tags: Set<String>; var best: Int }
    ///
    /// let posts = try database.collection(Post.self, merge: ["likes": .counter, "tags": .union, "best": .max])
    /// if var post = try posts.fetch(id: id) {
    ///     post.likes += 1
    ///     try posts.save(post) // an increment: adds up with other replicas' increments
    /// }
    /// ```
    ///
    /// `merge` names top-level fields by coding key: `.counter` fits an `Int` field, `.max`
    /// and `.min` a `Comparable` one, `.union` a `Set` or an array of `Hashable` elements (read
    /// back without duplicates, in the order of first addition). Other fields stay newest
    /// wins. A save lands the change the struct made since this collection last fetched or
    /// saved it (else since what is stored) on the stored state: a counter saved one higher
    /// adds 1 to the increments other replicas made meanwhile, a union field adds the elements
    /// the struct gained and removes only those it dropped. `replace(_:)` does the same for
    /// merged fields. Filters and sorts on a merged field run on the structs, never in SQL.
    ///
    /// Every process that writes the collection must pass the same policies: they are not
    /// recorded in the file.
    ///
    /// Throws ``CollectionError/invalidMergePolicy(collection:key:reason:)`` when a key names
    /// no stored property of `Element` or a field whose type the policy does not fit.
    public func collection<Element: Codable & Identifiable>(
        _ type: Element.Type,
        name: String? = nil,
        indexes: [PartialKeyPath<Element>] = [],
        defaults: [String: any DatabaseValue] = [:],
        merge: [String: MergePolicy]
    ) throws(CollectionError) -> CodableCollection<Element> where Element.ID: CollectionIdentifier {
        let name = name ?? String(describing: Element.self)
        var fields: [String: any MergedField] = [:]
        for (key, policy) in merge.sorted(by: { $0.key < $1.key }) {
            fields[key] = try MergedFields.make(policy, key: key, of: Element.self, collection: name)
        }
        return CodableCollection(database: self, name: name, indexes: indexes, defaults: defaults, mergedFields: fields)
    }
}
