import Pathbase

/// What the convergence simulation writes with every merge policy.
@Model(id: 5111)
final class SimulatedPost {
    @Property(id: 1, merge: .counter)
    var likes: Int

    @Property(id: 2, merge: .max)
    var best: Int

    @Property(id: 3, merge: .min)
    var lowest: Int = .max

    @Property(id: 4, merge: .union)
    var tags: Set<String>
}

/// A struct of a Codable collection whose fields have merge policies, as the simulation
/// writes it (``merge``).
struct SimulatedCard: Codable, Identifiable, Equatable {
    static let merge: [String: MergePolicy] = ["likes": .counter, "tags": .union]

    var id: Int
    var likes: Int
    var tags: Set<String>
}

/// The merged values of the simulation's posts and cards as one replica holds them.
struct MergeSnapshot: Equatable {
    static let instances = 1 ... 2

    var likes: [Int]
    var best: [Int]
    var lowest: [Int]
    var tags: [Set<String>]
    var cardLikes: [Int]
    var cardTags: [Set<String>]

    init(_ database: any Database) {
        let posts = Self.instances.map { SimulatedPost(database: database, id: $0) }
        likes = posts.map(\.likes)
        best = posts.map(\.best)
        lowest = posts.map(\.lowest)
        tags = posts.map(\.tags)
        let cards = try? database.collection(SimulatedCard.self, merge: SimulatedCard.merge)
        // A card that cannot be read reads as Int.min likes: never what the oracle expects.
        let read = Self.instances.map { id -> SimulatedCard? in
            guard let cards else { return SimulatedCard(id: id, likes: .min, tags: []) }
            do { return try cards.fetch(id: id) } catch { return SimulatedCard(id: id, likes: .min, tags: []) }
        }
        cardLikes = read.map { $0?.likes ?? 0 }
        cardTags = read.map { $0?.tags ?? [] }
    }
}

/// One change of a merged value as the simulation's workload issued it (of the instance
/// with `id`, in ``MergeSnapshot/instances``).
enum MergeOperation {
    case increment(id: Int, by: Int)
    case maximum(id: Int, Int)
    case minimum(id: Int, Int)
    case add(id: Int, String)
    /// An element the replica held when it removed it: an observed removal.
    case remove(id: Int, String)
    /// A card fetched, its counter changed by `increment`, an element added or removed, saved.
    case card(id: Int, increment: Int, add: String?, remove: String?)
}

/// What every replica must read once the simulation converged, computed from the operations
/// the workload issued and that took effect (a batch that threw issues none; an editing
/// context's count only once it committed), never from what a replica reads back: the sum of
/// every increment made, the largest and smallest value written, and exactly the elements
/// added and not removed. (Each element is added once, under a name of its own, and removed
/// only by a replica that holds it: an observed removal, which must win everywhere.)
struct MergeOracle {
    private(set) var likes = Array(repeating: 0, count: MergeSnapshot.instances.count)
    private var best = Array(repeating: 0, count: MergeSnapshot.instances.count)
    private var lowest = Array(repeating: Int.max, count: MergeSnapshot.instances.count)
    private var added = Array(repeating: Set<String>(), count: MergeSnapshot.instances.count)
    private var removed = Array(repeating: Set<String>(), count: MergeSnapshot.instances.count)
    private var cardLikes = Array(repeating: 0, count: MergeSnapshot.instances.count)
    private var cardAdded = Array(repeating: Set<String>(), count: MergeSnapshot.instances.count)
    private var cardRemoved = Array(repeating: Set<String>(), count: MergeSnapshot.instances.count)

    /// How many increments and decrements, writes of the maximum and minimum, additions and
    /// removals the workload issued.
    private(set) var increments = 0
    private(set) var maximumWrites = 0
    private(set) var minimumWrites = 0
    private(set) var additions = 0
    private(set) var removals = 0
    /// How many saves of a card's merged fields the workload issued.
    private(set) var cardChanges = 0

    private static func index(_ id: Int) -> Int { id - MergeSnapshot.instances.lowerBound }

    /// An operation that took effect on the replica that issued it.
    mutating func record(_ operation: MergeOperation) {
        switch operation {
        case .increment(let id, let delta):
            increments += 1
            likes[Self.index(id)] += delta
        case .maximum(let id, let value):
            maximumWrites += 1
            best[Self.index(id)] = max(best[Self.index(id)], value)
        case .minimum(let id, let value):
            minimumWrites += 1
            lowest[Self.index(id)] = min(lowest[Self.index(id)], value)
        case .add(let id, let element):
            additions += 1
            added[Self.index(id)].insert(element)
        case .remove(let id, let element):
            removals += 1
            removed[Self.index(id)].insert(element)
        case .card(let id, let increment, let element, let gone):
            cardChanges += 1
            cardLikes[Self.index(id)] += increment
            if let element { cardAdded[Self.index(id)].insert(element) }
            if let gone { cardRemoved[Self.index(id)].insert(gone) }
        }
    }

    /// What a converged replica reads, or why it does not.
    func mismatch(in snapshot: MergeSnapshot) -> String? {
        if snapshot.likes != likes { return "counters \(snapshot.likes), the increments made add up to \(likes)" }
        if snapshot.best != best { return "maximum \(snapshot.best), the largest written \(best)" }
        if snapshot.lowest != lowest { return "minimum \(snapshot.lowest), the smallest written \(lowest)" }
        let expected = zip(added, removed).map { $0.subtracting($1) }
        if snapshot.tags != expected { return "sets \(snapshot.tags), exactly the elements added and not removed \(expected)" }
        if snapshot.cardLikes != cardLikes { return "cards' counters \(snapshot.cardLikes), the increments saved add up to \(cardLikes)" }
        let cardExpected = zip(cardAdded, cardRemoved).map { $0.subtracting($1) }
        if snapshot.cardTags != cardExpected { return "cards' sets \(snapshot.cardTags), exactly the elements added and not removed \(cardExpected)" }
        return nil
    }
}
