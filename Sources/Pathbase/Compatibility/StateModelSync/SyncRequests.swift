/// The three update requests an ``UpdateConsumer`` sends, as values.
///
/// Each names a model (and an instance) and the cursor after which records are wanted;
/// `nil` asks for everything. ``UnencodedUpdateConsumer`` makes them and
/// ``UnencodedRequestProcessor`` answers them without encoding; they are `Codable` for
/// callers that send them with an encoding of their own.

/// A request for the instances of a model that are new or changed after a cursor.
///
/// ```swift
/// let request = try consumer.instanceStatusRequest(for: Item.self, after: cursor)
/// let response = try processor.process(instanceStatusRequest: request)
/// ```
public struct InstanceStatusRequest: Codable, Sendable, Hashable {
    /// The model whose instances are wanted.
    public var model: ModelKey
    /// Only instances with records after this cursor; all when `nil`.
    public var after: SyncCursor?

    /// Creates a request.
    public init(model: ModelKey, after: SyncCursor? = nil) {
        self.model = model
        self.after = after
    }
}

/// A request for the records of one instance after a cursor.
///
/// ```swift
/// let request = try consumer.instanceUpdateRequest(for: 7, of: Item.self, after: cursor)
/// ```
public struct InstanceUpdateRequest: Codable, Sendable, Hashable {
    /// The model of the instance.
    public var model: ModelKey
    /// The instance whose records are wanted.
    public var instance: InstanceKey
    /// Only records after this cursor; all when `nil`.
    public var after: SyncCursor?

    /// Creates a request.
    public init(model: ModelKey, instance: InstanceKey, after: SyncCursor? = nil) {
        self.model = model
        self.instance = instance
        self.after = after
    }
}

/// A request for one page of at most `limit` records of a model after a cursor.
///
/// ```swift
/// let request = try consumer.modelUpdateRequest(for: Item.self, after: cursor, limit: 100)
/// ```
public struct ModelUpdateRequest: Codable, Sendable, Hashable {
    /// The model whose records are wanted.
    public var model: ModelKey
    /// Only records after this cursor; all when `nil`.
    public var after: SyncCursor?
    /// The most records wanted in the page.
    public var limit: Int

    /// Creates a request.
    public init(model: ModelKey, after: SyncCursor? = nil, limit: Int) {
        self.model = model
        self.after = after
        self.limit = limit
    }
}
