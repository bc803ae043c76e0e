/// A collection that can be built from any sequence of its elements.
///
/// `@ReferenceList` works with every conforming type; `Array`, `Set` and `ContiguousArray`
/// conform already. Conform your own collection to use it for reference lists:
///
/// ```swift
/// extension MyList: SequenceInitializable {}
/// ```
public protocol SequenceInitializable: Sequence {

    /// Creates the collection from the elements of a sequence, in order.
    init<S: Sequence>(_ elements: S) where S.Element == Element
}

extension Array: SequenceInitializable {}
extension ContiguousArray: SequenceInitializable {}
extension Set: SequenceInitializable {}
