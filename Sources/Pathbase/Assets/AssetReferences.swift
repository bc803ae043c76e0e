import Foundation

/// Finds the assets that records reference, for garbage collection.
enum AssetReferences {

    /// The hashes of every asset referenced by a record of `database`: with history, every
    /// record kept; without, every current value.
    static func hashes(in database: any AssetStoringDatabase) throws -> Set<String> {
        var hashes = Set<String>()
        if let history = database.historyDatabase {
            for record in history.records(after: nil, limit: nil) {
                try collect(record.value, into: &hashes)
            }
        } else if let memory = database as? InMemoryDatabase {
            for entry in memory.currentValues() {
                try collect(entry.value, into: &hashes)
            }
        } else {
            throw AssetError.noAssetFolder
        }
        return hashes
    }

    /// Adds the assets in `value`: itself, or nested anywhere in its encoded form.
    static func collect(_ value: any DatabaseValue, into hashes: inout Set<String>) throws {
        switch value {
        case let asset as Asset:
            hashes.insert(asset.hash)
        case is Int, is Double, is Bool, is String, is Data, is Date, is InstanceStatus, is [Int], is Float:
            return // the native values hold no asset
        case let encoded as EncodedValue:
            scan(encoded.json, into: &hashes)
        default:
            scan(try JSONEncoder().encode(value), into: &hashes)
        }
    }

    /// The hashes after every `"assetSHA256":"` in JSON text.
    private static func scan(_ json: Data, into hashes: inout Set<String>) {
        let marker = Array("\"\(Asset.CodingKeys.hash.rawValue)\":\"".utf8)
        let bytes = [UInt8](json)
        var index = 0
        while index + marker.count + 64 <= bytes.count {
            if bytes[index] == marker[0], Array(bytes[index..<(index + marker.count)]) == marker {
                let start = index + marker.count
                let hash = String(decoding: bytes[start..<(start + 64)], as: UTF8.self)
                if Asset.isValidHash(hash) { hashes.insert(hash) }
                index = start + 64
            } else {
                index += 1
            }
        }
    }
}
