/// A model whose property ids are listed in a generated `PropertyId` enum.
///
/// `@Model` generates the enum with one case per stored property, named after it, so
/// code can refer to a property's path without repeating its id:
///
/// ```swift
/// let path = person.path(of: .name)
/// ```
public protocol ModelWithPropertyIds: ModelProtocol {

    /// The ids of the model's stored properties.
    associatedtype PropertyId: RawRepresentable, CaseIterable where PropertyId.RawValue == PropertyKey
}

extension ModelWithPropertyIds {

    /// The path of a property of this instance.
    @inlinable
    public func path(of property: PropertyId) -> Path {
        path(of: property.rawValue)
    }
}
