/// Makes a model function callable on instances in other databases: it generates
/// `<name>Command(…)` with the same arguments, which returns an ``InstanceCommand``.
///
/// ```swift
/// @Model(id: 1)
/// final class SystemPackage {
///     @Property(id: 1)
///     var name: String
///
///     @Command(id: 2)
///     func install(version: String) {
///         // Install the specified version of the package
///     }
/// }
///
/// let command = package.installCommand(version: "1.0.0")
/// let data = try command.encoded(using: JSONEncoder())
/// try StateClient(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder()).run(command: data)
/// ```
///
/// The id is an integer literal, unique among the model's commands and different from
/// every property id (and from 0). Parameters must be `Codable`; the function may throw
/// and may return a value (which is ignored). The macro rejects at compile time: a
/// non-literal or reserved id, a duplicate id, an id used by a property, `inout`, variadic,
/// closure, `some`/`any` and metatype parameters, generic functions, `async` functions,
/// and `static` functions.
@attached(peer, names: suffixed(Command))
public macro Command(id: CommandKey) = #externalMacro(module: "PathbaseMacros", type: "CommandMacro")
