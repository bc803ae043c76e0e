/// Whether an instance exists in a database.
///
/// The status is stored like any property value, under `PropertyKey/instanceId`.
/// Deleting an instance only marks it `.deleted`: its property values stay, so it can be
/// restored with `insert()`.
///
/// ```swift
/// model.delete()
/// print(model.status) // Prints "deleted"
/// model.insert()
/// print(model.status) // Prints "created"
/// ```
public enum InstanceStatus: UInt8, Codable, Sendable, CaseIterable {

    /// The instance exists.
    case created = 1

    /// The instance was deleted; its values are kept and it can be restored.
    case deleted = 2

    /// The database holds no status for this id: the instance was never created here.
    ///
    /// This status is reported, never stored: a handle to an id that was never created
    /// (for example a reference whose target has not arrived yet) reads as `.notCreated`.
    /// A stored `.notCreated` (undo writes it where an instance had no status before) means
    /// the same as no status: the model API and the databases' listings skip it.
    case notCreated = 0
}
