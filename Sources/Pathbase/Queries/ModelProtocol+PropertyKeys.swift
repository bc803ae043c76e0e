extension ModelProtocol {

    /// `nil` for every key path: a model without `@Model` has its filters run in memory.
    public static func _$propertyKey(for keyPath: AnyKeyPath) -> PropertyKey? {
        nil
    }
}
