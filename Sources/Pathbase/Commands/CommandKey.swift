/// The id of a command of a model, chosen once with `@Command(id:)`.
///
/// Commands share the id space of their model's properties: a command id must differ from
/// every property id of the model (and from 0, the instance status).
public typealias CommandKey = Int
