extension CodableCollection {

    /// The concurrent writes of each field of a stored struct (and of its status) that no
    /// later write replaced, each named by its coding key (``PropertyConflict/field``).
    ///
    /// ```swift
    /// for conflict in users.conflicts(of: user) {
    ///     print(conflict.field ?? "status", conflict.writes.map(\.value), "kept", conflict.kept.value)
    /// }
    /// ```
    ///
    /// Concurrency is known as for models (see ``Database/conflicts(of:)``); a losing value
    /// is written back with ``Database/restore(_:)``.
    public func conflicts(of element: Element) -> [PropertyConflict] {
        let instance = element.id.collectionInstanceKey
        guard let history = database.historyDatabase else { return [] }
        let status = PathConcurrency(path: .status(model: layout.model, instance: instance), in: history).conflict()
        let fields = FieldKeys.of(Element.self).fields.compactMap { field in
            PathConcurrency(path: layout.path(instance, layout.property(forKey: field.name)), in: history).conflict(field: field.name)
        }
        return (status.map { [$0] } ?? []) + fields
    }
}
