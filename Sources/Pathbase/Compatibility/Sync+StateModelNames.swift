import Foundation

// StateModel's names of the synchronization functions whose Pathbase names differ.

extension UnencodedRequestProcessor {

    /// StateModel's name for ``process(instanceStatusRequest:)``.
    ///
    /// ```swift
    /// let response = try processor.instanceStatusUpdates(for: request)
    /// ```
    @available(*, deprecated, renamed: "process(instanceStatusRequest:)")
    public func instanceStatusUpdates(for request: InstanceStatusRequest) throws(SyncError) -> SyncResponse {
        try process(instanceStatusRequest: request)
    }

    /// StateModel's name for ``process(modelUpdateRequest:)``.
    ///
    /// ```swift
    /// let response = try processor.allUpdates(for: request)
    /// ```
    @available(*, deprecated, renamed: "process(modelUpdateRequest:)")
    public func allUpdates(for request: ModelUpdateRequest) throws(SyncError) -> SyncResponse {
        try process(modelUpdateRequest: request)
    }
}

extension UnencodedUpdateConsumer {

    /// StateModel's name for ``apply(modelUpdate:)``. Continue with ``SyncResult/nextPage``
    /// where StateModel returned the instance to start the next page at.
    @available(*, deprecated, renamed: "apply(modelUpdate:)")
    @discardableResult
    public func apply(modelUpdates response: SyncResponse) throws(SyncError) -> SyncResult {
        try apply(modelUpdate: response)
    }
}

extension UpdateConsumer {

    /// StateModel's name for ``apply(modelUpdate:)``. Continue with ``SyncResult/nextPage``
    /// where StateModel returned the instance to start the next page at.
    @available(*, deprecated, renamed: "apply(modelUpdate:)")
    @discardableResult
    public func apply(modelUpdates data: Data) throws(SyncError) -> SyncResult {
        try apply(modelUpdate: data)
    }
}
