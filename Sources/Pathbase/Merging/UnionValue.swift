/// The stored state of a `.union` property: a set that keeps every element added on any
/// replica unless a replica removed it after seeing that addition (add-wins observed-remove).
///
/// ```swift
/// @Property(id: 4, merge: .union)
/// var tags: Set<String>
///
/// @ReferenceList(id: 5, merge: .union)
/// var followers: [User]
///
/// post.tags.insert("swift") // survives a concurrent removal of "swift" elsewhere
/// ```
///
/// Each addition is tagged with a *dot* (the adding replica and its count of additions),
/// and the state remembers how many additions of each replica it has seen (its context).
/// A removal drops the element's dots, so two states merge by keeping a dot that both hold,
/// or that one holds and the other has not seen. Concurrent additions both survive; a removal
/// removes only the additions its replica had seen. Elements read in the order they were
/// first added (concurrent additions ordered by replica), the same on every replica.
public struct UnionValue<Element: Hashable & Codable>: MergeableValue {

    /// One addition: the replica that made it and its number among that replica's additions.
    public struct Dot: Hashable, Codable, Sendable {
        /// The adding replica.
        public var replica: UInt32
        /// The addition's number among the replica's additions, from 1.
        public var counter: Int
    }

    /// Where an element reads: the logical time of its addition, then the adding replica.
    struct Position: Hashable, Comparable, Codable, Sendable {
        var time: Int
        var replica: UInt32

        static func < (lhs: Position, rhs: Position) -> Bool {
            lhs.time != rhs.time ? lhs.time < rhs.time : lhs.replica < rhs.replica
        }
    }

    /// The elements present, with the additions that keep them and where each reads.
    private(set) var entries: [Element: [Dot: Position]]

    /// How many additions of each replica this state has seen.
    private(set) var context: [UInt32: Int]

    /// An empty set.
    public init() {
        entries = [:]
        context = [:]
    }

    /// The elements, in the order they were first added.
    public var elements: [Element] {
        positioned.map(\.element)
    }

    /// The elements with where each reads (its earliest addition kept), in reading order.
    private var positioned: [(element: Element, position: Position)] {
        entries.compactMap { element, dots in dots.values.min().map { (element, $0) } }.sorted { $0.position < $1.position }
    }

    /// Whether the set holds `element`.
    public func contains(_ element: Element) -> Bool {
        entries[element] != nil
    }

    /// This set with `element` added as an addition of `replica` (which also covers the
    /// element's earlier additions this replica saw).
    public func inserting(_ element: Element, by replica: UInt32) -> UnionValue {
        var result = self
        let counter = (context[replica] ?? 0) &+ 1
        result.context[replica] = counter
        let time = (entries.values.lazy.flatMap(\.values).map(\.time).max() ?? 0) &+ 1
        let position = entries[element]?.values.min() ?? Position(time: time, replica: replica)
        result.entries[element] = [Dot(replica: replica, counter: counter): position]
        return result
    }

    /// This set without `element`: the additions of it seen here are removed.
    public func removing(_ element: Element) -> UnionValue {
        var result = self
        result.entries[element] = nil
        return result
    }

    /// This set changed to hold exactly `elements`: the missing ones added by `replica`, the
    /// others removed; `nil` when it already holds exactly them.
    public func changed(to elements: some Sequence<Element>, by replica: UInt32) -> UnionValue? {
        var result = self
        var wanted = Set<Element>()
        for element in elements where wanted.insert(element).inserted && entries[element] == nil {
            result = result.inserting(element, by: replica)
        }
        for element in entries.keys where !wanted.contains(element) {
            result = result.removing(element)
        }
        return result == self ? nil : result
    }

    /// Keeps each dot both states hold, or that one holds and the other has not seen.
    public func merged(with other: UnionValue) -> UnionValue {
        var result = UnionValue()
        result.context = context.merging(other.context, uniquingKeysWith: { Swift.max($0, $1) })
        for element in Set(entries.keys).union(other.entries.keys) {
            let mine = entries[element] ?? [:]
            let theirs = other.entries[element] ?? [:]
            var dots = mine.filter { theirs[$0.key] != nil || !other.hasSeen($0.key) }
            for (dot, position) in theirs where mine[dot] != nil || !hasSeen(dot) {
                // A dot carries the position of its addition, the same in every state.
                dots[dot] = Swift.min(position, dots[dot] ?? position)
            }
            if !dots.isEmpty { result.entries[element] = dots }
        }
        return result
    }

    private func hasSeen(_ dot: Dot) -> Bool {
        (context[dot.replica] ?? 0) >= dot.counter
    }

    /// Lands a change made apart from `current` (in an editing context, an undo or a redo):
    /// the elements `new` holds and `old` did not are added, those `old` held and `new`
    /// does not are removed.
    public static func landing(changeFrom old: UnionValue?, to new: UnionValue?, over current: UnionValue, by replica: UInt32) -> UnionValue? {
        let before = Set(old.map { Array($0.entries.keys) } ?? [])
        let after = Set(new.map { Array($0.entries.keys) } ?? [])
        var result = current
        for element in new?.elements ?? [] where !before.contains(element) {
            result = result.inserting(element, by: replica)
        }
        for element in before where !after.contains(element) {
            result = result.removing(element)
        }
        return result == current ? nil : result
    }

    /// This set with the additions `old` made since `base` moved to `new`: each of them
    /// gets a dot of `new` (and keeps where it reads), and `old`'s count goes back to
    /// `base`'s, so the other file that wrote under `old` can never have issued the same dot
    /// (see ``MergeableValue/rehomed(from:to:since:)``).
    public func rehomed(from old: UInt32, to new: UInt32, since base: UnionValue?) -> UnionValue {
        let kept = base?.context[old] ?? 0
        guard (context[old] ?? 0) > kept else { return self }
        var result = self
        var counter = context[new] ?? 0
        for (element, dots) in entries {
            var moved = dots
            for (dot, position) in dots.sorted(by: { $0.key.counter < $1.key.counter }) where dot.replica == old && dot.counter > kept {
                moved[dot] = nil
                counter &+= 1
                moved[Dot(replica: new, counter: counter)] = position
            }
            result.entries[element] = moved
        }
        result.context[old] = kept == 0 ? nil : kept
        result.context[new] = counter
        return result
    }

    // MARK: Coding

    private enum CodingKeys: String, CodingKey {
        case context, entries
    }

    /// One element as encoded: the element and its dots, each with where it reads.
    private struct EncodedEntry: Codable {
        var element: Element
        var dots: [EncodedDot]
    }

    private struct EncodedDot: Codable {
        var replica: UInt32
        var counter: Int
        var time: Int
        var reads: UInt32
    }

    /// Encodes the context by replica and the elements in reading order, dots sorted, so
    /// equal states encode alike on every replica.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(context.sorted { $0.key < $1.key }.map { [Int($0.key), $0.value] }, forKey: .context)
        let encoded = positioned.map { element, _ in
            let dots = (entries[element] ?? [:]).sorted { $0.key.replica != $1.key.replica ? $0.key.replica < $1.key.replica : $0.key.counter < $1.key.counter }
            return EncodedEntry(element: element, dots: dots.map { EncodedDot(replica: $0.key.replica, counter: $0.key.counter, time: $0.value.time, reads: $0.value.replica) })
        }
        try container.encode(encoded, forKey: .entries)
    }

    /// Decodes the context and the elements.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var context: [UInt32: Int] = [:]
        for pair in try container.decode([[Int]].self, forKey: .context) {
            guard pair.count == 2, let replica = UInt32(exactly: pair[0]) else {
                throw DecodingError.dataCorruptedError(forKey: .context, in: container, debugDescription: "a context entry is [replica, count]")
            }
            context[replica] = pair[1]
        }
        var entries: [Element: [Dot: Position]] = [:]
        for entry in try container.decode([EncodedEntry].self, forKey: .entries) where !entry.dots.isEmpty {
            var dots: [Dot: Position] = [:]
            for dot in entry.dots {
                dots[Dot(replica: dot.replica, counter: dot.counter)] = Position(time: dot.time, replica: dot.reads)
            }
            entries[entry.element] = dots
        }
        self.context = context
        self.entries = entries
    }
}

extension UnionValue: Sendable where Element: Sendable {}
