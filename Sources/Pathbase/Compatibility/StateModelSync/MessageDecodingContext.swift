/// What decoding a message needs to know about the receiving side: which kinds it takes,
/// the types of its models (to decode values and command arguments), and its database (to
/// find a command's instance).
///
/// `Decodable` has no parameters, so the context is bound as a task-local value around one
/// synchronous `decode` call and read by the message types' initializers.
final class MessageDecodingContext: @unchecked Sendable {
    // @unchecked: the closure and the database are only touched inside the synchronous
    // `decode` call that binds the context, on the thread that made it.

    let expected: Set<MessageKind>
    let expectedDescription: String
    let modelType: (ModelKey) -> (any ModelProtocol.Type)?
    let database: (any Database)?

    init(expected: Set<MessageKind>, expectedDescription: String, modelType: @escaping (ModelKey) -> (any ModelProtocol.Type)?, database: (any Database)?) {
        self.expected = expected
        self.expectedDescription = expectedDescription
        self.modelType = modelType
        self.database = database
    }

    @TaskLocal static var current: MessageDecodingContext?

    /// The bound context; decoding a message without one (for example with a decoder that
    /// decodes on another thread) fails.
    static func required(by decoder: any Decoder) throws -> MessageDecodingContext {
        guard let current else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "Synchronization messages are decoded by UpdateConsumer, RequestProcessor and StateClient"))
        }
        return current
    }

    /// The type of the value stored at a path, or `nil` for a property the model does not
    /// have (or an unknown model).
    func valueType(at path: Path) -> (any DatabaseValue.Type)? {
        if path.isStatus { return InstanceStatus.self }
        return modelType(path.model)?._$propertyType(path.property)
    }
}
