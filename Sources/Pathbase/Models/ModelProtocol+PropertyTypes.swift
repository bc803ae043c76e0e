extension ModelProtocol {

    /// No stored property types: what a hand-written model without `@Model` reports.
    public static func _$propertyType(_ property: PropertyKey) -> (any DatabaseValue.Type)? {
        nil
    }
}
