/// A repository's operations for `async` code: the same operations, run off the task
/// threads.
///
/// ```swift
/// let users = database.collection(User.self).async
/// try await users.save(User(id: UUID(), name: "Ada", age: 36, tags: []))
/// let count = try await users.count()
/// let adults = try await users.perform { try $0.fetch(where: \.age >= 18, sortedBy: \.name) }
/// ```
///
/// Every operation runs on Pathbase's database work threads, as ``Database/write(_:)``
/// does, so a slow disk never stalls the cooperative thread pool. Elements and filters are
/// `sending`: they move to the database thread and the results move back, so non-`Sendable`
/// structs are fine as long as the caller does not keep using what it sent. A task
/// cancelled before an operation starts throws `CancellationError` and changes nothing.
public struct AsyncRepository<Base: Repository & Sendable>: Sendable where Base.ID: Sendable {

    /// The repository the operations run on.
    public let base: Base

    /// The async operations of `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// Every stored element.
    public func fetch() async throws -> sending [Base.Element] {
        try await BlockingWork.run { [base] in try base.fetch() }
    }

    /// The element with an id, or `nil`.
    public func fetch(id: Base.ID) async throws -> sending Base.Element? {
        try await BlockingWork.run { [base] in try base.fetch(id: id) }
    }

    /// The elements a filter includes, in id order, paged. (For elements that are not
    /// `Sendable`, fetch in ``perform(_:)``.)
    public func fetch(where filter: sending Base.Filter, offset: Int = 0, limit: Int? = nil) async throws -> [Base.Element] where Base.Element: Sendable {
        try await BlockingWork.run { [base] in try base.fetch(where: filter, offset: offset, limit: limit) }
    }

    /// Stores an element.
    public func save(_ element: sending Base.Element) async throws {
        try await BlockingWork.run { [base] in try base.save(element) }
    }

    /// Deletes the element with an id.
    public func delete(id: Base.ID) async throws {
        try await BlockingWork.run { [base] in try base.delete(id: id) }
    }

    /// How many elements are stored.
    public func count() async throws -> Int {
        try await BlockingWork.run { [base] in try base.count() }
    }

    /// Runs any synchronous operations of the repository off the task threads, and returns
    /// what `body` returns: for operations beyond ``Repository`` (sorted fetches, saving
    /// arrays, `first(where:)`).
    ///
    /// ```swift
    /// let youngest = try await users.perform { try $0.first(sortedBy: [.ascending(\.age)]) }
    /// ```
    public func perform<Result>(_ body: sending @escaping (Base) throws -> sending Result) async throws -> sending Result {
        try await BlockingWork.run { [base] in try body(base) }
    }
}

extension Repository where Self: Sendable, ID: Sendable {

    /// This repository's operations for `async` code; see ``AsyncRepository``.
    ///
    /// ```swift
    /// let people = try await database.collection(User.self).async.fetch()
    /// ```
    public var async: AsyncRepository<Self> { AsyncRepository(self) }
}
