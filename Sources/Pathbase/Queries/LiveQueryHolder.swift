/// Keeps a ``Query``'s live query across updates of its view: the decision of when to
/// fetch again, outside the SwiftUI-only `Query` so that it builds and is tested everywhere.
@MainActor
package final class LiveQueryHolder<Model: ModelProtocol> {

    /// The live query; `nil` until the view first updates.
    package private(set) var live: LiveQuery<Model>?

    /// An empty holder: the first ``update(_:isFixed:in:)`` makes the live query.
    package init() {}

    /// Makes the live query unless the one there reads `database` and, when the query is
    /// not fixed, has the descriptor's id.
    package func update(_ descriptor: QueryDescriptor<Model>, isFixed: Bool, in database: ObservableDatabase) {
        if let live, live.database === database, isFixed || live.query.id == descriptor.id { return }
        live = LiveQuery(descriptor, in: database)
    }
}
