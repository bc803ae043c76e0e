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

/// What every replica must read once the simulation converged, from what each replica's
/// own steps changed there: the sum of every increment made, the largest and smallest value
/// written, and every element added and not removed. (Each element is added once, under a
/// name of its own, and removed only by a replica that holds it: an observed removal.)
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
    /// removals the replicas' steps made.
    private(set) var increments = 0
    private(set) var maximumWrites = 0
    private(set) var minimumWrites = 0
    private(set) var additions = 0
    private(set) var removals = 0
    /// How many changes of a card's merged fields the steps made.
    private(set) var cardChanges = 0

    /// A step of one replica changed its values from `before` to `after` (pulls are not steps).
    mutating func note(_ before: MergeSnapshot, _ after: MergeSnapshot) {
        for index in likes.indices {
            if after.likes[index] != before.likes[index] { increments += 1 }
            likes[index] += after.likes[index] - before.likes[index]
            if after.best[index] != before.best[index] { maximumWrites += 1 }
            best[index] = max(best[index], after.best[index])
            if after.lowest[index] != before.lowest[index] { minimumWrites += 1 }
            lowest[index] = min(lowest[index], after.lowest[index])
            let new = after.tags[index].subtracting(before.tags[index])
            let gone = before.tags[index].subtracting(after.tags[index])
            additions += new.count
            removals += gone.count
            added[index].formUnion(new)
            removed[index].formUnion(gone)
            let cardNew = after.cardTags[index].subtracting(before.cardTags[index])
            let cardGone = before.cardTags[index].subtracting(after.cardTags[index])
            if after.cardLikes[index] != before.cardLikes[index] { cardChanges += 1 }
            cardChanges += cardNew.count + cardGone.count
            cardLikes[index] += after.cardLikes[index] - before.cardLikes[index]
            cardAdded[index].formUnion(cardNew)
            cardRemoved[index].formUnion(cardGone)
        }
    }

    /// What a converged replica reads, or why it does not.
    func mismatch(in snapshot: MergeSnapshot) -> String? {
        if snapshot.likes != likes { return "counters \(snapshot.likes), the increments made add up to \(likes)" }
        if snapshot.best != best { return "maximum \(snapshot.best), the largest written \(best)" }
        if snapshot.lowest != lowest { return "minimum \(snapshot.lowest), the smallest written \(lowest)" }
        let expected = zip(added, removed).map { $0.subtracting($1) }
        if snapshot.tags != expected { return "sets \(snapshot.tags), added and not removed \(expected)" }
        if snapshot.cardLikes != cardLikes { return "cards' counters \(snapshot.cardLikes), the increments saved add up to \(cardLikes)" }
        let cardExpected = zip(cardAdded, cardRemoved).map { $0.subtracting($1) }
        if snapshot.cardTags != cardExpected { return "cards' sets \(snapshot.cardTags), added and not removed \(cardExpected)" }
        return nil
    }
}
