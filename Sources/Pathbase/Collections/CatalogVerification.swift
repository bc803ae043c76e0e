/// The content version at which a collection last found its name in the database's
/// catalog: a query that follows with nothing written in between skips reading the name
/// again (one value read per query: a twentieth of an indexed query of ten matches).
final class CatalogVerification: @unchecked Sendable {
    // @unchecked: `verifiedAt` is guarded by `lock`.

    private let lock = Lock()
    @exclusivity(unchecked) private var verifiedAt: ContentVersion?

    /// Whether the catalog was found right at `version`.
    func holds(at version: ContentVersion) -> Bool {
        lock.withLock { verifiedAt == version }
    }

    func verified(at version: ContentVersion) {
        lock.withLock { verifiedAt = version }
    }
}
