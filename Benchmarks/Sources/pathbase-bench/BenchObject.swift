import Pathbase

/// The model of the object lines (`sqlite.object-*`, `sqlite.listing-*`): five properties,
/// the row a fixed-schema table would hold.
@Model(id: 2)
final class BenchObject {
    @Property(id: 1)
    var count: Int

    @Property(id: 2)
    var name: String

    @Property(id: 3)
    var score: Double

    @Property(id: 4)
    var flag: Bool

    @Property(id: 5)
    var note: String
}

extension BenchObject {
    /// The value every property reads as, summed so the optimizer can't drop the reads.
    var checksum: Int {
        count &+ name.utf8.count &+ Int(score) &+ (flag ? 1 : 0) &+ note.utf8.count
    }
}
