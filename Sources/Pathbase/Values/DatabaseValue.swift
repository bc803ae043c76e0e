/// A value that a database can store: any `Codable` type.
///
/// Databases keep integers, floating point numbers, strings, booleans and bytes natively,
/// and may encode other values with a codec of their choice.
public typealias DatabaseValue = Codable
