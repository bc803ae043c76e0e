/// In-memory databases keep assets in a temporary folder, created on the first asset and
/// removed with the database.
extension InMemoryDatabase: AssetStoringDatabase {
    public var assets: AssetStore { temporaryAssets }
}

extension InMemoryHistoryDatabase: AssetStoringDatabase {
    public var assets: AssetStore { temporaryAssets }
}
