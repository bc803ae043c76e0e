import Foundation

/// Finds the assets that records reference, for garbage collection, transfers and Pathbase
/// Studio's previews.
package enum AssetReferences {

    /// Every asset referenced by a record of `database`: with history, every record kept;
    /// without, every current value.
    static func assets(in database: any AssetStoringDatabase) throws -> Set<Asset> {
        var assets = Set<Asset>()
        if let history = database.historyDatabase {
            for record in history.records(after: nil, limit: nil) {
                try collect(record.value, into: &assets)
            }
        } else if let current = database.currentValuesWithoutHistory {
            for entry in current {
                try collect(entry.value, into: &assets)
            }
        } else {
            throw AssetError.noAssetFolder
        }
        return assets
    }

    /// Adds the assets in `value`: itself, or nested anywhere in its encoded form.
    package static func collect(_ value: any DatabaseValue, into assets: inout Set<Asset>) throws {
        // The native values hold no asset.
        if NativeValueType(of: value) != nil { return }
        switch value {
        case let asset as Asset:
            assets.insert(asset)
        case let encoded as EncodedValue:
            try scan(encoded.json, into: &assets)
        default:
            try scan(JSONEncoder().encode(value), into: &assets)
        }
    }

    /// The assets in JSON text: every object with an asset's two keys and a valid hash.
    private static func scan(_ json: Data, into assets: inout Set<Asset>) throws {
        // Most values hold no asset: look for the key before parsing.
        guard json.range(of: Data(Asset.CodingKeys.hash.rawValue.utf8)) != nil else { return }
        walk(try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]), into: &assets)
    }

    private static func walk(_ object: Any, into assets: inout Set<Asset>) {
        if let dictionary = object as? [String: Any] {
            if let hash = dictionary[Asset.CodingKeys.hash.rawValue] as? String,
                let size = (dictionary[Asset.CodingKeys.size.rawValue] as? NSNumber)?.int64Value,
                let asset = try? Asset(hash: hash, size: size)
            { // not a valid hash: not an asset
                assets.insert(asset)
            }
            for value in dictionary.values { walk(value, into: &assets) }
        } else if let array = object as? [Any] {
            for value in array { walk(value, into: &assets) }
        }
    }
}
