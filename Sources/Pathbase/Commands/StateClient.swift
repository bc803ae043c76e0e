import Foundation

/// Runs commands received from elsewhere on the instances of a database.
///
/// ```swift
/// let client = StateClient(database: database, encoder: JSONEncoder(), decoder: JSONDecoder())
/// try client.run(command: commandData)
/// ```
///
/// The client finds the targeted instance and calls the `@Command` function with the
/// decoded arguments. It refuses, with a ``SyncError`` and without running anything, a
/// command for an unknown model, for an instance that does not exist or is deleted, with an
/// unknown command id, or with arguments that do not decode as the function's parameters.
///
/// Without a model map, model types come from ``ModelRegistry/shared``: the types used with
/// any database in this process, or registered there. Commands work on every ``Database``,
/// history or not. Use a client from one thread at a time.
public final class StateClient {

    /// The database whose instances run the commands.
    public let database: any Database

    private let encoder: any DataEncoder
    private let decoder: any DataDecoder
    private let modelMap: (ModelKey) -> (any ModelProtocol.Type)?

    /// Creates a client that runs commands on a database.
    ///
    /// - Parameters:
    ///   - database: Where the commands' instances live.
    ///   - encoder: Encodes commands made with ``encoded(_:)``.
    ///   - decoder: Decodes received commands.
    ///   - modelMap: The model type for each model id; ``ModelRegistry/shared`` when `nil`.
    public init(database: any Database, encoder: any DataEncoder, decoder: any DataDecoder, modelMap: ((ModelKey) -> (any ModelProtocol.Type)?)? = nil) {
        self.database = database
        self.encoder = encoder
        self.decoder = decoder
        self.modelMap = modelMap ?? { ModelRegistry.shared.type(for: $0) }
    }

    /// Runs an encoded command on its instance.
    ///
    /// - Throws: A ``SyncError`` if the command is refused (nothing ran), or the error the
    ///   command's function threw.
    public func run(command data: Data) throws {
        let message = try IncomingMessage.decode(data, with: decoder, expecting: [.command], description: "a command", modelType: modelMap, database: database)
        guard case .command(let command) = message else { throw SyncError.malformedMessage("not a command") }
        try command.run()
    }

    /// Encodes a command with this client's encoder, for sending it to another client.
    public func encoded(_ command: InstanceCommand) throws(SyncError) -> Data {
        try command.encoded(using: encoder)
    }
}
