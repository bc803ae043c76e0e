import Pathbase

/// The model every benchmark uses: one Int, one String and one Double property.
@Model(id: 1)
final class BenchItem {
    @Property(id: 1)
    var count: Int

    @Property(id: 2)
    var name: String

    @Property(id: 3)
    var score: Double
}

/// Names built before timing starts, so no benchmark measures string formatting.
func benchNames(_ count: Int) -> [String] {
    (0 ..< count).map { "item name number \($0)" }
}
