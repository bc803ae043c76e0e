/// Inverse relationships: which instances reference this one.
///
/// ```swift
/// @Model(id: 1) final class Project { @Property(id: 1) var name: String }
/// @Model(id: 2) final class Task {
///     @Reference(id: 1) var project: Project?
///     @ReferenceList(id: 2) var watchers: [Person]
/// }
///
/// let tasks = project.referrers(through: \Task.project)   // tasks whose project is `project`
/// let watched = alice.referrers(through: \Task.watchers)  // tasks alice watches
/// ```
///
/// Nothing is stored for the inverse direction: it is a query on the referencing property,
/// so it is always consistent with the references. On `SQLiteDatabase` it is one prepared
/// statement on the value index (references) or the list index (reference lists); on other
/// databases
/// by evaluating the references of every instance of the referencing model. Only active
/// referrers are returned, in instance id order. For results that update themselves, use a
/// ``LiveQuery`` with ``QueryFilter/references(_:_:)-(KeyPath<Model,Target?>,_)``.
extension ModelProtocol {

    /// The active instances of `Source` whose `@Reference` at `keyPath` points to this
    /// instance.
    public func referrers<Source: ModelProtocol>(through keyPath: KeyPath<Source, Self?>) -> [Source] {
        lookUpReferrers(through: keyPath, inList: false) ?? database.fetch(QueryDescriptor<Source>(where: .references(keyPath, self)))
    }

    /// The active instances of `Source` whose `@ReferenceList` at `keyPath` contains this
    /// instance.
    public func referrers<Source: ModelProtocol, List: Sequence>(through keyPath: KeyPath<Source, List>) -> [Source] where List.Element == Self {
        lookUpReferrers(through: keyPath, inList: true) ?? database.fetch(QueryDescriptor<Source>(where: .references(keyPath, self)))
    }

    /// The referrers from a database that looks them up itself; `nil` otherwise.
    private func lookUpReferrers<Source: ModelProtocol>(through keyPath: PartialKeyPath<Source>, inList: Bool) -> [Source]? {
        let database = self.database
        guard let lookup = database.queryPushdown as? any InverseLookupDatabase,
            let property = Source._$propertyKey(for: keyPath)
        else { return nil }
        database.checkModelType(Source.self)
        return lookup.referrers(of: id, model: Source.modelId, property: property, inList: inList)?
            .map { Source(database: database, id: $0) }
    }
}
