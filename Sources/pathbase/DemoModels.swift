import Pathbase

/// Model ids of the demo, collected in one enum as the README recommends.
enum DemoModelId: ModelKey {
    case author = 1
    case book = 2
}

@Model(id: DemoModelId.author.rawValue)
final class Author {
    @Property(id: 1)
    var name: String

    @Property(id: 2)
    var country: String = "unknown"
}

@Model(id: DemoModelId.book.rawValue)
final class Book {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var pages: Int

    @Reference(id: 3)
    var author: Author?

    @ReferenceList(id: 4)
    var translators: [Author]
}
