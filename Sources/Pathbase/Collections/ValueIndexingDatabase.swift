/// A database that keeps extra indexes on request: a collection's declared indexes become
/// indexes over the current values of one (model, property).
package protocol ValueIndexingDatabase: Database {

    /// Creates (once) an index over the current values of `property` of `model`.
    func createValueIndex(model: ModelKey, property: PropertyKey) throws
}
