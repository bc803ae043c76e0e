import Foundation

/// A call of a `@Command` function of one instance, to be sent and run elsewhere.
///
/// `@Command` generates a function `<name>Command(…)` with the same arguments that returns
/// one; encode it and hand the data to a ``StateClient`` or ``RequestProcessor`` on the
/// side that should run it:
///
/// ```swift
/// @Model(id: 1)
/// final class SystemPackage {
///     @Property(id: 1)
///     var name: String
///
///     @Command(id: 2)
///     func install(version: String) { … }
/// }
///
/// let command = package.installCommand(version: "1.0.0")
/// let data = try command.encoded(using: JSONEncoder())
/// // elsewhere:
/// try client.run(command: data)
/// ```
///
/// The arguments are encoded in order, each as its own type; the receiving side decodes
/// them with the types of its own declaration of the function.
public struct InstanceCommand {

    /// The model of the instance.
    public let model: ModelKey

    /// The instance that runs the command.
    public let instance: InstanceKey

    /// The command's id within the model.
    public let command: CommandKey

    /// The arguments, in the order of the function's parameters.
    public let arguments: [any Encodable]

    /// Creates a command; generated `…Command(…)` functions call this.
    public init(model: ModelKey, instance: InstanceKey, command: CommandKey, arguments: [any Encodable]) {
        self.model = model
        self.instance = instance
        self.command = command
        self.arguments = arguments
    }

    /// Encodes the command as a message, ready to be sent.
    public func encoded(using encoder: any DataEncoder) throws(SyncError) -> Data {
        try encoder.encodeMessage(MessageKind.command, Body(command: self))
    }

    /// The wire form: `{ model, instance, command, arguments: [...] }`.
    private struct Body: Encodable {
        let command: InstanceCommand

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CommandMessageKey.self)
            try container.encode(command.model, forKey: .model)
            try container.encode(command.instance, forKey: .instance)
            try container.encode(command.command, forKey: .command)
            var arguments = container.nestedUnkeyedContainer(forKey: .arguments)
            for argument in command.arguments {
                try arguments.encode(argument)
            }
        }
    }
}

/// The keys of a command message's body.
enum CommandMessageKey: String, CodingKey {
    case model, instance, command, arguments
}
