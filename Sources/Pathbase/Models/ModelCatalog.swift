/// Where a database file describes the `@Model` types created in it, so that tools
/// (`pathbase inspect`, `pathbase history`, Pathbase Studio) show names instead of ids.
///
/// One record per model type: its ``ModelDescription`` at (model ``model``, instance: the
/// model id, property 1). The catalog has no instance statuses, so tools that list models by
/// their instances never list it as an app's data. Its records are ordinary records, stamped
/// by the file's clock: exported and imported (the model id is not negative), pushed and
/// pulled by a ``Replica``, so a second device's file and the server hold the names too.
///
/// Collections keep their own catalog (their names, at model `0x3FFF_FF00`); this one sits
/// beside it.
enum ModelCatalog {

    /// The model holding one description per `@Model` type, by model id.
    static let model: ModelKey = 0x3FFF_FF02

    /// Where the description of the model `described` is recorded.
    static func path(of described: ModelKey) -> Path {
        Path(model: model, instance: described, property: 1)
    }

    /// Records a model type's description unless the stored one already says as much:
    /// properties the stored description has and this one lacks are kept (they name values
    /// an older version of the app wrote), and nothing is written when the result equals
    /// the stored description, so opening a file again adds no record.
    static func record(_ description: ModelDescription, of described: ModelKey, in database: any Database) {
        let path = path(of: described)
        let stored: ModelDescription? = database.get(path)
        let recorded = stored.map { description.keepingProperties(of: $0) } ?? description
        guard recorded != stored else { return }
        database.set(recorded, for: path)
    }
}

extension Database {

    /// What the database's catalog records about a `@Model` type: its name and its stored
    /// properties' names, kinds and reference targets; `nil` when nothing is recorded (a file
    /// written before Pathbase recorded descriptions, or a database that does not record them).
    ///
    /// ```swift
    /// let name = database.modelDescription(of: 1)?.name ?? "model 1"
    /// ```
    ///
    /// An `SQLiteDatabase` file records a type's description the first time the process
    /// creates an instance of it there (`create`, `getOrCreate`, the generated
    /// `create(in:id:…)`), and only when the file does not already hold it.
    public func modelDescription(of model: ModelKey) -> ModelDescription? {
        get(ModelCatalog.path(of: model))
    }
}
