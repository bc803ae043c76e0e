extension MaximumCountCache {

    /// StateModel's cache, which evicted a fraction of its values at once when full.
    ///
    /// ```swift
    /// let cache = MaximumCountCache(maxCount: 1000, evictionFraction: 0.2)
    /// ```
    ///
    /// Pathbase's cache evicts one value at a time, the least recently used by the second
    /// chance policy, when a new value needs room, so `evictionFraction` is not used.
    @available(*, deprecated, message: "Pathbase's cache evicts one value at a time: use MaximumCountCache(maxCount:)")
    @_disfavoredOverload
    public convenience init(maxCount: Int = 1000, evictionFraction: Double = 0.2) {
        self.init(maxCount: maxCount)
    }

    /// StateModel's cache, which kept `elementsToKeep` values when it evicted.
    ///
    /// Pathbase's cache evicts one value at a time when a new value needs room, so
    /// `elementsToKeep` is not used; ``removeLeastRecentlyUsed(toReachCount:)`` evicts down to
    /// a count on request.
    @available(*, deprecated, message: "Pathbase's cache evicts one value at a time: use MaximumCountCache(maxCount:)")
    public convenience init(maxCount: Int, elementsToKeep: Int) {
        self.init(maxCount: maxCount)
    }
}
