extension Path {

    /// Creates the path of one property, named by a case of a model's generated `PropertyId`.
    ///
    /// ```swift
    /// let path = Path(model: Person.modelId, instance: 1, property: Person.PropertyId.name)
    /// ```
    ///
    /// The same path as `Path(model:instance:property:)` with the case's raw value.
    @inlinable
    public init<Property: RawRepresentable>(model: ModelKey, instance: InstanceKey, property: Property) where Property.RawValue == PropertyKey {
        self.init(model: model, instance: instance, property: property.rawValue)
    }
}
