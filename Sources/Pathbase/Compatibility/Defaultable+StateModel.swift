extension Defaultable {

    /// ``Defaultable/defaultValue`` under StateModel's name, for code that reads `Int.default`.
    ///
    /// ```swift
    /// let zero = Int.default // 0, the same as Int.defaultValue
    /// ```
    public static var `default`: Self { defaultValue }

    /// The default of a conformance written for StateModel, which gives `default` instead:
    ///
    /// ```swift
    /// extension Priority: Defaultable {
    ///     static let `default` = Priority.normal // compiles, with a warning naming `defaultValue`
    /// }
    /// ```
    ///
    /// The compiler warns at such a conformance, because it uses this deprecated fallback.
    /// A conformance that gives neither `defaultValue` nor `default` gets the same warning;
    /// reading its default would never end, so give one of them.
    @available(*, deprecated, message: "Pathbase names the default 'defaultValue': write 'static let defaultValue = …' in Defaultable conformances")
    public static var defaultValue: Self { Self.default }
}
