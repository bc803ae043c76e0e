import Pathbase

/// The Codable collections of a file as `inspect`, `export` and `import` print them: one line
/// each, by name, with its model id and the fields its structs stored.
///
/// ```
/// collection users (model 1234567): age, name, tags
/// ```
enum CollectionListing {

    /// One line per collection, sorted by name; none when the file holds no collection.
    static func lines(of database: some Database) -> [String] {
        database.collectionSummaries().map { collection in
            let fields = collection.fields.keys.sorted().joined(separator: ", ")
            return "collection \(collection.name) (model \(collection.model)): \(fields.isEmpty ? "no fields" : fields)"
        }
    }
}
