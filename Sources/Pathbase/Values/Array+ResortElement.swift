extension Array {

    /// Moves one element to where an ordering puts it, when the other elements are already in
    /// that order: after changing the sort key of one item of a sorted list.
    ///
    /// ```swift
    /// var items = database.all(of: Item.self).sorted { $0.rank < $1.rank }
    /// items[3].rank = 0
    /// items.resortElement(at: 3) { $0.rank < $1.rank } // now items[0]
    /// ```
    ///
    /// Costs one removal, one insertion and O(log n) comparisons. Among elements that order
    /// the same, the element keeps its position if it can; otherwise it goes next to them.
    /// An index outside the array changes nothing.
    public mutating func resortElement(at index: Int, by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
        guard indices.contains(index) else { return }
        let element = remove(at: index)
        // The positions where `element` keeps the order: after everything ordered before it,
        // before everything ordered after it.
        let earliest = try partitionPoint { try !areInIncreasingOrder($0, element) }
        let latest = try partitionPoint { try areInIncreasingOrder(element, $0) }
        insert(element, at: Swift.min(Swift.max(index, earliest), latest))
    }

    /// The first index whose element satisfies `predicate`, which is false for a prefix of
    /// the array and true for the rest.
    private func partitionPoint(where predicate: (Element) throws -> Bool) rethrows -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if try predicate(self[middle]) {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }
}

extension Array where Element: Comparable {

    /// Moves one element to its place in ascending order, when the other elements are
    /// already in ascending order.
    ///
    /// ```swift
    /// var numbers = [1, 3, 5, 7]
    /// numbers[0] = 6
    /// numbers.resortElement(at: 0) // [3, 5, 6, 7]
    /// ```
    public mutating func resortElement(at index: Int) {
        resortElement(at: index, by: <)
    }
}
