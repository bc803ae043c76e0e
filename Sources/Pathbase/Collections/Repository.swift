/// Stored values of one kind, behind one interface whatever stores them: Codable
/// collections and `@Model` classes alike, on every database.
///
/// ```swift
/// func adults<R: Repository>(in repository: R, age: @escaping (R.Element) -> Int) throws -> [R.Element] {
///     try repository.fetch(where: R.Filter { age($0) >= 18 }, offset: 0, limit: nil)
/// }
/// let fromStructs = try adults(in: database.collection(User.self)) { $0.age ?? 0 }
/// let fromModels = try adults(in: database.repository(of: Person.self)) { $0.age }
/// ```
///
/// App code written against it swaps backends (in-memory, history, SQLite, a custom
/// three-function `Database`, any wrapper) and data styles without a change.
public protocol Repository<Element>: AnyObject {

    /// What the repository stores.
    associatedtype Element

    /// How an element is identified.
    associatedtype ID: Hashable

    /// Which elements a query includes (``CollectionFilter`` or ``QueryFilter``).
    associatedtype Filter: RepositoryFilter where Filter.Subject == Element

    /// Every stored element.
    func fetch() throws -> [Element]

    /// The element with an id, or `nil`.
    func fetch(id: ID) throws -> Element?

    /// The elements a filter includes, in id order, paged.
    func fetch(where filter: Filter, offset: Int, limit: Int?) throws -> [Element]

    /// Stores an element.
    func save(_ element: Element) throws

    /// Deletes the element with an id.
    func delete(id: ID) throws

    /// How many elements are stored.
    func count() throws -> Int
}

/// A filter a repository runs that can always be built from a closure.
///
/// ```swift
/// let filter = CollectionFilter<User> { $0.tags.contains("admin") }
/// ```
public protocol RepositoryFilter {

    /// What the filter is evaluated on.
    associatedtype Subject

    /// A filter evaluated on elements.
    init(_ isIncluded: @escaping (Subject) -> Bool)
}

extension CollectionFilter: RepositoryFilter {
    public typealias Subject = Element
}

extension QueryFilter: RepositoryFilter {
    public typealias Subject = Model
}

extension CodableCollection: Repository {

    public func fetch(where filter: CollectionFilter<Element>, offset: Int, limit: Int?) throws -> [Element] {
        try fetch(CollectionQuery(where: filter, offset: offset, limit: limit))
    }

    public func count() throws -> Int {
        try count(where: .all)
    }
}

/// The active instances of a `@Model` class in a database, as a ``Repository``.
///
/// ```swift
/// let people = database.repository(of: Person.self)
/// try people.save(Person.create(in: database, id: 1, name: "Ada"))
/// let ada = try people.fetch(id: 1)
/// ```
///
/// Models write their values as they are set; `save` makes the instance active (creating
/// or restoring it), `delete(id:)` marks it deleted.
public final class ModelRepository<Model: ModelProtocol>: Repository {

    /// The database the models live in.
    public let database: any Database

    init(database: any Database) {
        self.database = database
    }

    public func fetch() throws -> [Model] {
        database.fetch(QueryDescriptor<Model>())
    }

    public func fetch(id: InstanceKey) throws -> Model? {
        database.active(id: id)
    }

    public func fetch(where filter: QueryFilter<Model>, offset: Int, limit: Int?) throws -> [Model] {
        database.fetch(QueryDescriptor(where: filter, offset: offset, limit: limit))
    }

    public func save(_ model: Model) throws {
        let handle = Model(database: database, id: model.id)
        if handle.status != .created { handle.insert() }
    }

    public func delete(id: InstanceKey) throws {
        let handle = Model(database: database, id: id)
        if handle.status == .created { handle.delete() }
    }

    public func count() throws -> Int {
        database.count(QueryDescriptor<Model>())
    }
}

extension Database {

    /// The active instances of a model class as a ``Repository``.
    ///
    /// ```swift
    /// let people = database.repository(of: Person.self)
    /// ```
    public func repository<Model: ModelProtocol>(of type: Model.Type) -> ModelRepository<Model> {
        ModelRepository(database: self)
    }
}
