/// Conditions and sorts built without a model type, by property id: what Pathbase Studio
/// sends through the same SQL push-down (``QueryPushdownDatabase``) that queries on models use.
extension StoredCondition {

    /// A condition on `property`'s current value, stored as `valueType`; `matchesNil` and
    /// `matchesDefault` say what it evaluates to for a stored `nil` and for no value of that type.
    package init(propertyId property: PropertyKey, storedAs valueType: any QueryableValue.Type, operation: Operator, operands: [QueryOperand], matchesNil: Bool, matchesDefault: Bool) {
        self.property = property
        self.valueType = valueType
        self.operation = operation
        self.operands = operands
        self.matchesNil = matchesNil
        self.matchesDefault = matchesDefault
    }
}

extension StoredSort {

    /// A sort on `property`'s current value stored as `valueType`, instances without one
    /// sorting as `defaultValue`.
    package init(propertyId property: PropertyKey, storedAs valueType: any QueryableValue.Type, defaultValue: QueryOperand, reverse: Bool) {
        self.property = property
        self.valueType = valueType
        self.defaultValue = defaultValue
        self.reverse = reverse
    }
}
