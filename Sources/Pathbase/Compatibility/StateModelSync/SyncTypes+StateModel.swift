import Foundation

/// StateModel's command on its way to the side that runs it: Pathbase's ``InstanceCommand``,
/// which `@Command` functions' generated `…Command(…)` return and
/// ``UpdateConsumer/encode(command:)`` encodes.
///
/// Its members differ: the command is named by ``InstanceCommand/model``,
/// ``InstanceCommand/instance`` and ``InstanceCommand/command`` (StateModel's `path`), and
/// its arguments are kept as values until encoded (StateModel's `arguments` held each as data).
@available(*, deprecated, renamed: "InstanceCommand")
public typealias CommandRequest = InstanceCommand

/// StateModel's update of one property: Pathbase sends ``Record``s, each a value at a path
/// (model, instance, property) with its ``Timestamp``, in every ``SyncResponse``.
@available(*, deprecated, renamed: "Record", message: "Pathbase synchronizes Records: a value at a path with its Timestamp")
public typealias PropertyUpdate = Record

extension InstanceStatusRequest {

    /// StateModel's request for the instances of a model new or changed at or after a date
    /// (all of them when `nil`).
    @available(*, deprecated, message: "Use init(model:after:) with a SyncCursor from the last SyncResult")
    public init(model: ModelKey, timestamp: Date?) {
        self.init(model: model, after: timestamp.flatMap(SyncCursor.init(date:)))
    }
}

extension InstanceUpdateRequest {

    /// StateModel's request for the records of one instance written at or after a date (all
    /// of them when `nil`).
    @available(*, deprecated, message: "Use init(model:instance:after:) with a SyncCursor from the last SyncResult")
    public init(instance: InstanceKey, model: ModelKey, timestamp: Date?) {
        self.init(model: model, instance: instance, after: timestamp.flatMap(SyncCursor.init(date:)))
    }
}
