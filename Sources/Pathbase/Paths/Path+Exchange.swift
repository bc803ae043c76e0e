extension Path {

    /// Why this path can't travel in an export or a sync message, or `nil` when it can.
    ///
    /// ```swift
    /// Path(model: -1, instance: 1, property: 1).exchangeProblem // "a negative model id (-1)"
    /// ```
    ///
    /// The exchange contract: model ids and property ids are not negative (models choose
    /// theirs with `@Model(id:)`, properties with positive literals; property 0 is the
    /// status). Instance ids may be any `Int`. A document that breaks it was not written by
    /// Pathbase, and importing it is refused before anything is written.
    public var exchangeProblem: String? {
        if model < 0 { return "a negative model id (\(model))" }
        if property < 0 { return "a negative property id (\(property))" }
        return nil
    }
}
