/// Makes a class a model stored in a ``Database``, under a model id unique per database.
///
/// ```swift
/// @Model(id: 1)
/// final class Person {
///     @Property(id: 1)
///     var name: String
///
///     @Property(id: 2)
///     var age: Int = 18
///
///     @Reference(id: 3)
///     var partner: Person?
///
///     @ReferenceList(id: 4)
///     var friends: [Person]
/// }
/// ```
///
/// The macro adds `modelId`, `database`, `id`, `init(database:id:)`, a
/// `create(in:id:<every property>)` function, an `enum PropertyId` listing the property ids,
/// and `deleteAndClearProperties()`, and conforms the class to ``ModelProtocol``
/// (`Identifiable`, `Hashable`). For synchronization and commands it also adds the stored
/// type of each property and the dispatch of the class's `@Command` functions
/// (`_$propertyType` and `_$command`, not meant to be called directly). Generated members
/// take the class's access level.
///
/// It rejects at compile time: a non-class, two properties with one id, an id that is not
/// an integer literal, the reserved id 0, a wrapper on a `let`, a property without a type
/// annotation, two `@Command`s with one id, a command id used by a property. Two model
/// types that share a model id in one database stop the program at the first `create`,
/// `get`, `active`, `getOrCreate` or `all` of the second type, with a message naming both.
@attached(
    member, names: named(modelId), named(database), named(id), named(init), named(create), named(PropertyId), named(deleteAndClearProperties), named(_$propertyType),
    named(_$propertyKey), named(_$description), named(_$command))
@attached(extension, conformances: ModelProtocol, ModelWithPropertyIds)
public macro Model(id: ModelKey) = #externalMacro(module: "PathbaseMacros", type: "ModelMacro")

/// Stores a property in the database under a property id unique within its model.
///
/// ```swift
/// @Property(id: 42)
/// var value: String = "Default"
///
/// @Property(id: 43)
/// var count: Int // Defaults to 0
/// ```
///
/// Any `Codable` type works. Without an initial value the type must be ``Defaultable``.
/// A stored value that no longer decodes as the property's type reads as the default.
@attached(accessor, names: named(get), named(set), named(init))
public macro Property(id: PropertyKey) = #externalMacro(module: "PathbaseMacros", type: "PropertyMacro")

/// Stores a property whose concurrent writes on different replicas combine by a
/// ``MergePolicy`` instead of the newest winning.
///
/// ```swift
/// @Property(id: 1, merge: .counter)
/// var likes: Int // post.likes += 1 adds up across replicas
///
/// @Property(id: 2, merge: .max)
/// var highestBid: Int
/// ```
///
/// `.counter` requires `Int`; `.max` and `.min` any `Comparable & Codable` type (without an
/// initial value it must be ``Defaultable``); `.union` a `Set` (``UnionValue``). The model reads and writes plain values; the
/// database stores a ``MergeableValue`` state. `merge: .newestWins` is the same as no policy.
@attached(accessor, names: named(get), named(set), named(init))
public macro Property(id: PropertyKey, merge: MergePolicy) = #externalMacro(module: "PathbaseMacros", type: "PropertyMacro")

/// Stores a one-way reference to another model's instance, by instance id.
///
/// ```swift
/// @Reference(id: 3)
/// var contained: NestedModel?
/// ```
///
/// The type is optional (or implicitly unwrapped). Reading a reference never creates the
/// referenced instance; a reference to a deleted instance reads with status `.deleted`.
@attached(accessor, names: named(get), named(set), named(init))
public macro Reference(id: PropertyKey) = #externalMacro(module: "PathbaseMacros", type: "ReferenceMacro")

/// Stores a list of references to other instances, for one-to-many and many-to-many
/// relationships.
///
/// ```swift
/// @ReferenceList(id: 1)
/// var other: [NestedModel]
/// ```
///
/// Works with `Array`, `Set`, `ContiguousArray` and any ``SequenceInitializable``.
@attached(accessor, names: named(get), named(set), named(init))
public macro ReferenceList(id: PropertyKey) = #externalMacro(module: "PathbaseMacros", type: "ReferenceListMacro")

/// Stores a list of references whose concurrent changes on different replicas combine: with
/// `merge: .union`, instances added on any replica all stay, and a removal removes only the
/// additions its replica had seen.
///
/// ```swift
/// @ReferenceList(id: 2, merge: .union)
/// var followers: [User]
/// ```
///
/// The list holds each instance once, in the order instances were first added. `.union` is
/// the only policy of a reference list (see ``MergePolicy/union``).
@attached(accessor, names: named(get), named(set), named(init))
public macro ReferenceList(id: PropertyKey, merge: MergePolicy) = #externalMacro(module: "PathbaseMacros", type: "ReferenceListMacro")

/// Stores references to other instances by key, for relationships looked up by name, date
/// or any other `Hashable & Codable` key.
///
/// ```swift
/// @ReferenceDictionary(id: 5)
/// var roles: [String: Person]
/// ```
///
/// The record holds `[Key: InstanceKey]`. Reading gives a handle for every stored key,
/// also to instances deleted since: their status is `.deleted`, as in a `@ReferenceList`.
/// Reading never creates the referenced instances.
@attached(accessor, names: named(get), named(set), named(init))
public macro ReferenceDictionary(id: PropertyKey) = #externalMacro(module: "PathbaseMacros", type: "ReferenceDictionaryMacro")
