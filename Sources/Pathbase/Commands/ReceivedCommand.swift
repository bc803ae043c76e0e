/// A command as received: its instance found and its arguments decoded, ready to run.
///
/// Decoding does every check before anything runs — the model is known, the instance
/// exists and is not deleted, the model has the command, the arguments decode as the
/// function's parameter types and none are left over — so a refused command changes
/// nothing.
struct ReceivedCommand: Decodable {

    let model: ModelKey
    let instance: InstanceKey
    let command: CommandKey
    /// Calls the command's function with the decoded arguments.
    let run: () throws -> Void

    init(from decoder: any Decoder) throws {
        let context = try MessageDecodingContext.required(by: decoder)
        let container = try decoder.container(keyedBy: CommandMessageKey.self)
        model = try container.decode(ModelKey.self, forKey: .model)
        instance = try container.decode(InstanceKey.self, forKey: .instance)
        command = try container.decode(CommandKey.self, forKey: .command)

        guard let type = context.modelType(model) else { throw SyncError.unknownModel(model) }
        guard let database = context.database,
            ReceivedCommand.status(of: instance, model: model, in: database) == .created
        else {
            throw SyncError.unknownInstance(model: model, instance: instance)
        }
        let target = type.init(database: database, id: instance)
        var arguments: any UnkeyedDecodingContainer
        do {
            arguments = try container.nestedUnkeyedContainer(forKey: .arguments)
        } catch {
            throw SyncError.undecodableArguments(model: model, command: command, reason: SyncError.describe(error))
        }
        let call: (() throws -> Void)?
        do {
            call = try target._$command(command, arguments: &arguments)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError.undecodableArguments(model: model, command: command, reason: SyncError.describe(error))
        }
        guard let call else { throw SyncError.unknownCommand(model: model, command: command) }
        guard arguments.isAtEnd else {
            let count = arguments.count.map { " of \($0)" } ?? ""
            throw SyncError.undecodableArguments(model: model, command: command, reason: "more arguments than the function takes (read \(arguments.currentIndex)\(count))")
        }
        run = call
    }

    private static func status(of instance: InstanceKey, model: ModelKey, in database: any Database) -> InstanceStatus {
        let status: InstanceStatus? = database.get(.status(model: model, instance: instance))
        return status ?? .notCreated
    }
}

/// The body of the response to a command that ran.
struct CommandDone: Codable, Sendable {
    var model: ModelKey
    var instance: InstanceKey
    var command: CommandKey
}
