import Foundation

extension UpdateConsumer {

    /// Encodes a command made by a generated `…Command(…)` function with this consumer's
    /// encoder, ready to send to the side that runs it.
    ///
    /// ```swift
    /// let request = try consumer.encode(command: package.installCommand(version: "1.0.0"))
    /// let response = producer.process(request: request)   // on the other side
    /// try consumer.decode(commandResponse: response)        // throws if it failed there
    /// ```
    ///
    /// The same as ``InstanceCommand/encoded(using:)`` with the consumer's encoder.
    public func encode(command: InstanceCommand) throws(SyncError) -> Data {
        try command.encoded(using: encoder)
    }

    /// Reads the answer of ``RequestProcessor/process(command:)`` or
    /// ``RequestProcessor/process(request:)`` to a command: returns if the command ran, and
    /// throws the ``SyncError`` the other side reported if it did not.
    ///
    /// Anything else than a command's answer throws ``SyncError/unexpectedMessage(kind:expected:)``.
    public func decode(commandResponse data: Data) throws(SyncError) {
        let message = try IncomingMessage.decode(data, with: decoder, expecting: [.commandDone, .error], description: "a command response", modelType: modelMap)
        switch message {
        case .commandDone:
            return
        case .error(let error):
            throw error
        case .instanceStatusRequest, .instanceUpdateRequest, .modelUpdateRequest, .command, .instanceStatuses, .instanceUpdate, .modelUpdate:
            throw .unexpectedMessage(kind: "another message", expected: "a command response")
        }
    }
}
