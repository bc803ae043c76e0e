#if canImport(SwiftUI)
    import SwiftUI

    /// The active instances of a model, for a SwiftUI view, kept up to date as the database
    /// changes.
    ///
    /// Put the ``ObservableDatabase`` into the environment, and declare the results:
    ///
    /// ```swift
    /// struct ContentView: View {
    ///     @EnvironmentObject private var database: ObservableDatabase
    ///     @Query var items: [Item]
    ///
    ///     var body: some View {
    ///         List(items) { item in Text(item.name) }
    ///     }
    /// }
    ///
    /// ContentView().environmentObject(ObservableDatabase(wrapping: InMemoryDatabase()))
    /// ```
    ///
    /// Filter, sort and page right in the declaration, or build the query from a
    /// ``QueryDescriptor`` that can change:
    ///
    /// ```swift
    /// @Query(filter: { $0.isCompleted }, sortBy: { $0.name }) var done: [Item]
    ///
    /// init(descriptor: Binding<QueryDescriptor<Item>>) {
    ///     _items = Query(descriptor: descriptor.wrappedValue)
    /// }
    /// ```
    ///
    /// The view reads the database from the environment (`.environmentObject(database)`; a
    /// view without one stops the program, as for any missing environment object) and keeps
    /// a ``LiveQuery`` of it. Reading the results in `body` tracks them, so the view is drawn
    /// again when they change. The live query is made when the view first appears and again
    /// when the environment's database changes or the query has another
    /// ``QueryDescriptor/id``. Every descriptor made gets a new id: a query given as closures
    /// is fetched again each time the parent view makes this view anew (`Query()` is not);
    /// keep a descriptor in the parent's state, as above, to keep its results.
    ///
    /// Write to the database on the main thread: the results change on the writing thread.
    @MainActor
    @propertyWrapper
    public struct Query<Model: ModelProtocol>: DynamicProperty {

        /// The database, from the environment.
        @EnvironmentObject private var database: ObservableDatabase

        /// The live query, kept across updates of the view.
        @State private var holder = LiveQueryHolder<Model>()

        /// What to fetch.
        private let descriptor: QueryDescriptor<Model>

        /// Whether every instance of `Query` built the same way means the same query, so that a
        /// new descriptor id does not fetch again.
        private let isFixed: Bool

        /// Every active instance, in the database's order.
        ///
        /// ```swift
        /// @Query var items: [Item]
        /// ```
        public init() {
            self.descriptor = QueryDescriptor()
            self.isFixed = true
        }

        /// The active instances that pass a filter (all when `nil`), in the database's order,
        /// paged.
        ///
        /// ```swift
        /// @Query(filter: { !$0.isCompleted }) var open: [Item]
        /// ```
        public init(filter: ((Model) -> Bool)? = nil, offset: Int = 0, limit: Int? = nil) {
            self.init(descriptor: QueryDescriptor(filter: filter, offset: offset, limit: limit))
        }

        /// The active instances that pass a filter (all when `nil`), sorted by a key
        /// (descending with `reverse`), paged.
        ///
        /// ```swift
        /// @Query(filter: { $0.isCompleted }, sortBy: { $0.name }) var done: [Item]
        /// ```
        public init<Key: Comparable>(
            filter: ((Model) -> Bool)? = nil,
            sortBy key: @escaping (Model) -> Key,
            reverse: Bool = false,
            offset: Int = 0,
            limit: Int? = nil
        ) {
            self.init(descriptor: QueryDescriptor(filter: filter, sortBy: key, reverse: reverse, offset: offset, limit: limit))
        }

        /// The active instances that pass a filter the database runs (SQL on SQLite), paged.
        ///
        /// ```swift
        /// @Query(where: \.isCompleted == false) var open: [Item]
        /// ```
        public init(where predicate: QueryFilter<Model>, offset: Int = 0, limit: Int? = nil) {
            self.init(descriptor: QueryDescriptor(where: predicate, offset: offset, limit: limit))
        }

        /// The active instances that pass a filter, sorted by a stored property, paged — all
        /// run by the database when it can.
        ///
        /// ```swift
        /// @Query(where: \.isCompleted == false, sortBy: \.title) var open: [Item]
        /// ```
        public init<Key: QueryableValue & Comparable>(
            where predicate: QueryFilter<Model> = .all,
            sortBy keyPath: KeyPath<Model, Key>,
            reverse: Bool = false,
            offset: Int = 0,
            limit: Int? = nil
        ) {
            self.init(descriptor: QueryDescriptor(where: predicate, sortBy: keyPath, reverse: reverse, offset: offset, limit: limit))
        }

        /// The instances a descriptor describes; a descriptor with another id fetches again.
        ///
        /// ```swift
        /// init(descriptor: Binding<QueryDescriptor<Item>>) {
        ///     _items = Query(descriptor: descriptor.wrappedValue)
        /// }
        /// ```
        public init(descriptor: QueryDescriptor<Model>) {
            self.descriptor = descriptor
            self.isFixed = false
        }

        /// The current results: filtered, sorted, paged; empty before the view first appears.
        ///
        /// ```swift
        /// List(items) { item in Text(item.name) }
        /// ```
        public var wrappedValue: [Model] {
            holder.live?.results ?? []
        }

        /// Makes the live query, or makes it anew when the database or the query changed.
        ///
        /// SwiftUI calls it before each `body`, on the main thread; you don't:
        ///
        /// ```swift
        /// var body: some View {
        ///     List(items) { item in Text(item.name) } // `items` is up to date here
        /// }
        /// ```
        ///
        /// `nonisolated` so that it fulfils `DynamicProperty` whether the SDK declares the
        /// requirement on the main actor or not; it checks that it runs there.
        public nonisolated func update() {
            MainActor.assumeIsolated {
                holder.update(descriptor, isFixed: isFixed, in: database)
            }
        }
    }
#endif
