import Foundation

// StateModel's names of types that Pathbase has under another name. Each is deprecated with
// the Pathbase name, so code written for StateModel compiles and the warning says what to
// write instead.

/// StateModel's encoder protocol: Pathbase's ``DataEncoder``, which `JSONEncoder` conforms to.
@available(*, deprecated, renamed: "DataEncoder")
public typealias GenericEncoder = DataEncoder

/// StateModel's decoder protocol: Pathbase's ``DataDecoder``, which `JSONDecoder` conforms to.
@available(*, deprecated, renamed: "DataDecoder")
public typealias GenericDecoder = DataDecoder

/// StateModel's synchronization error: Pathbase throws ``SyncError``, whose cases say what
/// failed.
@available(*, deprecated, renamed: "SyncError")
public typealias StateError = SyncError

/// StateModel's timestamped database protocol: in Pathbase a ``HistoryDatabase`` keeps every
/// value with its timestamp.
@available(*, deprecated, renamed: "HistoryDatabase")
public typealias TimestampedDatabase = HistoryDatabase

/// StateModel's editing context that starts from the current state: Pathbase's
/// ``EditingContext``, which `Database/createEditingContextWithCurrentState()` returns.
@available(*, deprecated, renamed: "EditingContext")
public typealias HistoryEditingContext = EditingContext

/// StateModel's answer to an instance status request: Pathbase answers with a ``SyncResponse``.
@available(*, deprecated, renamed: "SyncResponse")
public typealias InstancesUpdate = SyncResponse

/// StateModel's answer to an instance update request: Pathbase answers with a ``SyncResponse``.
@available(*, deprecated, renamed: "SyncResponse")
public typealias InstanceUpdate = SyncResponse

/// StateModel's answer to a model update request: Pathbase answers with a ``SyncResponse``.
@available(*, deprecated, renamed: "SyncResponse")
public typealias ModelUpdate = SyncResponse

/// StateModel's name for an encoded instance status request: `Data`.
@available(*, deprecated, message: "Pathbase passes encoded requests and responses as Data")
public typealias InstanceStatusRequestData = Data

/// StateModel's name for an encoded instance status response: `Data`.
@available(*, deprecated, message: "Pathbase passes encoded requests and responses as Data")
public typealias InstancesData = Data

/// StateModel's name for an encoded instance update request: `Data`.
@available(*, deprecated, message: "Pathbase passes encoded requests and responses as Data")
public typealias InstanceUpdateRequestData = Data

/// StateModel's name for an encoded instance update: `Data`.
@available(*, deprecated, message: "Pathbase passes encoded requests and responses as Data")
public typealias InstanceUpdateData = Data

/// StateModel's name for an encoded model update request: `Data`.
@available(*, deprecated, message: "Pathbase passes encoded requests and responses as Data")
public typealias ModelUpdateRequestData = Data

/// StateModel's name for an encoded model update: `Data`.
@available(*, deprecated, message: "Pathbase passes encoded requests and responses as Data")
public typealias ModelUpdateData = Data

/// StateModel's name for an encoded command: `Data`.
@available(*, deprecated, message: "Pathbase passes encoded requests and responses as Data")
public typealias CommandRequestData = Data

/// StateModel's name for the encoded answer to a command: `Data`.
@available(*, deprecated, message: "Pathbase passes encoded requests and responses as Data")
public typealias CommandResponseData = Data
