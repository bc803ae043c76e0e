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
