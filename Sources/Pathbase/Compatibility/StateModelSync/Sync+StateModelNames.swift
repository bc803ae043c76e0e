import Foundation

// StateModel's names of the synchronization functions whose Pathbase names differ, and its
// paging by instance.

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

extension UnencodedRequestProcessor {

    /// StateModel's `instanceStatusUpdates(for:after:)`: the instances of a model that are
    /// new or changed at or after a date (all of them when `nil`), as
    /// ``process(instanceStatusRequest:)`` answers.
    ///
    /// ```swift
    /// let statuses = try processor.instanceStatusUpdates(for: Item.self, after: lastSync)
    /// ```
    @available(*, deprecated, message: "Build the request with UnencodedUpdateConsumer.instanceStatusRequest(for:after:) and answer it with process(instanceStatusRequest:)")
    public func instanceStatusUpdates<Model: ModelProtocol>(for model: Model.Type, after date: Date?) throws(SyncError) -> SyncResponse {
        try process(instanceStatusRequest: InstanceStatusRequest(model: Model.modelId, after: date.flatMap(SyncCursor.init(date:))))
    }
}

extension UnencodedRequestProcessor {

    /// StateModel's `updates(for:of:after:)`: every record of an instance written after a
    /// date (all of them when `nil`), as ``process(instanceUpdateRequest:)`` answers.
    ///
    /// ```swift
    /// let update = processor.updates(for: 7, of: Item.self, after: lastSync)
    /// ```
    ///
    /// Like StateModel's it does not throw: for an unknown model or instance, or a database
    /// without history, the answer holds no records. ``process(instanceUpdateRequest:)``
    /// throws the reason instead.
    @available(*, deprecated, message: "Use process(instanceUpdateRequest:), which throws a SyncError saying why it cannot answer")
    public func updates<Model: ModelProtocol>(for instance: InstanceKey, of model: Model.Type, after date: Date?) -> SyncResponse {
        updates(for: instance, of: Model.modelId, after: date)
    }

    /// StateModel's `updates(for:of:after:)` by model id.
    @available(*, deprecated, message: "Use process(instanceUpdateRequest:), which throws a SyncError saying why it cannot answer")
    public func updates(for instance: InstanceKey, of model: ModelKey, after date: Date?) -> SyncResponse {
        let request = InstanceUpdateRequest(model: model, instance: instance, after: date.flatMap(SyncCursor.init(date:)))
        do {
            return try process(instanceUpdateRequest: request)
        } catch {
            return SyncResponse(model: model, instance: instance, records: [], cursor: request.after)
        }
    }
}

extension UnencodedUpdateConsumer {

    /// StateModel's request for the instances of a model that are new or changed at or
    /// after a date, all of them when `nil`.
    ///
    /// ```swift
    /// let request = try consumer.instanceStatusRequest(for: Item.self, after: lastSync)
    /// ```
    @_disfavoredOverload
    public func instanceStatusRequest<Model: ModelProtocol>(for model: Model.Type, after date: Date?) throws(SyncError) -> InstanceStatusRequest {
        try instanceStatusRequest(for: model, after: date.flatMap(SyncCursor.init(date:)))
    }

    /// StateModel's request for the records of one instance written at or after a date, all
    /// of them when `nil`.
    @_disfavoredOverload
    public func instanceUpdateRequest<Model: ModelProtocol>(for instance: InstanceKey, of model: Model.Type, after date: Date?) throws(SyncError) -> InstanceUpdateRequest {
        try instanceUpdateRequest(for: instance, of: model, after: date.flatMap(SyncCursor.init(date:)))
    }

    /// StateModel's paged request: one page of at most `limit` records of a model written
    /// after `date`, continuing at the instance the last page's ``apply(modelUpdates:)``
    /// returned.
    ///
    /// ```swift
    /// var next: InstanceKey? = nil
    /// repeat {
    ///     let request = try consumer.modelUpdateRequest(for: Item.self, after: lastSync, limit: 100, startingAt: next)
    ///     next = try consumer.apply(modelUpdates: try processor.process(modelUpdateRequest: request))
    /// } while next != nil
    /// ```
    ///
    /// Pathbase pages by record, not by instance: the consumer remembers where the last page
    /// of each model ended, and `startingAt:` continues there when it names that page's
    /// instance (otherwise the request starts again after `date`, which sends records again
    /// but loses none).
    @available(*, deprecated, message: "Pathbase pages by SyncCursor: pass the nextPage of the last SyncResult to modelUpdateRequest(for:after:limit:startingAt:)")
    @_disfavoredOverload
    public func modelUpdateRequest<Model: ModelProtocol>(for model: Model.Type, after date: Date?, limit: Int, startingAt instance: InstanceKey? = nil) throws(SyncError) -> ModelUpdateRequest {
        let page = instance.flatMap { instance in stateModelPages[Model.modelId].flatMap { $0.path.instance == instance ? $0 : nil } }
        return try modelUpdateRequest(for: model, after: date.flatMap(SyncCursor.init(date:)), limit: limit, startingAt: page)
    }

    /// StateModel's ``apply(modelUpdate:)``: stores a page of records and returns the
    /// instance to continue at, or `nil` when the last page arrived.
    @available(*, deprecated, message: "Use apply(modelUpdate:) and continue with its SyncResult's nextPage")
    @discardableResult
    public func apply(modelUpdates response: SyncResponse) throws(SyncError) -> InstanceKey? {
        notePage(try apply(modelUpdate: response).nextPage)
    }

    /// Remembers where the next page of a model starts, and returns its instance.
    func notePage(_ next: SyncCursor?) -> InstanceKey? {
        guard let next else { return nil }
        stateModelPages[next.path.model] = next
        return next.path.instance
    }
}

extension UpdateConsumer {

    /// StateModel's request for the instances of a model that are new or changed at or
    /// after a date (all of them when `nil`), as data.
    ///
    /// ```swift
    /// let request = try consumer.instanceStatusRequest(for: Item.self, after: lastSync)
    /// ```
    @_disfavoredOverload
    public func instanceStatusRequest<Model: ModelProtocol>(for model: Model.Type, after date: Date?) throws(SyncError) -> Data {
        try instanceStatusRequest(for: model, after: date.flatMap(SyncCursor.init(date:)))
    }

    /// StateModel's request for the records of one instance written at or after a date (all
    /// of them when `nil`), as data.
    @_disfavoredOverload
    public func instanceUpdateRequest<Model: ModelProtocol>(for instance: InstanceKey, of model: Model.Type, after date: Date?) throws(SyncError) -> Data {
        try instanceUpdateRequest(for: instance, of: model, after: date.flatMap(SyncCursor.init(date:)))
    }

    /// StateModel's paged request as data: see
    /// `UnencodedUpdateConsumer/modelUpdateRequest(for:after:limit:startingAt:)`.
    ///
    /// ```swift
    /// var next: InstanceKey? = nil
    /// repeat {
    ///     let request = try consumer.modelUpdateRequest(for: Item.self, after: lastSync, limit: 100, startingAt: next)
    ///     next = try consumer.apply(modelUpdates: try producer.process(modelUpdateRequest: request))
    /// } while next != nil
    /// ```
    @available(*, deprecated, message: "Pathbase pages by SyncCursor: pass the nextPage of the last SyncResult to modelUpdateRequest(for:after:limit:startingAt:)")
    @_disfavoredOverload
    public func modelUpdateRequest<Model: ModelProtocol>(for model: Model.Type, after date: Date?, limit: Int, startingAt instance: InstanceKey? = nil) throws(SyncError) -> Data {
        try encoder.encodeMessage(.modelUpdateRequest, unencoded.modelUpdateRequest(for: model, after: date, limit: limit, startingAt: instance))
    }

    /// StateModel's ``apply(modelUpdate:)``: stores a page of records and returns the
    /// instance to continue at, or `nil` when the last page arrived.
    @available(*, deprecated, message: "Use apply(modelUpdate:) and continue with its SyncResult's nextPage")
    @discardableResult
    public func apply(modelUpdates data: Data) throws(SyncError) -> InstanceKey? {
        unencoded.notePage(try apply(modelUpdate: data).nextPage)
    }
}
