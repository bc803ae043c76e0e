import Foundation
import Pathbase

// Model ids 2000–2049: synchronization and commands.

@Model(id: 2000)
final class SyncItem {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var count: Int

    @Property(id: 3)
    var note: String? = "draft"

    @Reference(id: 4)
    var owner: SyncOwner?

    @ReferenceList(id: 5)
    var tags: [SyncTag]

    @Property(id: 6)
    var scores: [String: Double]
}

@Model(id: 2001)
final class SyncOwner {
    @Property(id: 1)
    var name: String
}

@Model(id: 2002)
final class SyncTag {
    @Property(id: 1)
    var label: String
}

/// A model of another app version: `SyncItem`'s id with one property more.
@Model(id: 2000)
final class SyncItemV2 {
    @Property(id: 1)
    var title: String

    @Property(id: 7)
    var priority: Int
}

/// A command argument that is a plain Codable struct.
struct Release: Codable, Equatable, Sendable {
    var version: String
    var channel: String
}

struct InstallFailure: Error, CustomStringConvertible {
    var description: String { "disk full" }
}

@Model(id: 2010)
final class Package {
    @Property(id: 1)
    var name: String

    @Property(id: 3)
    var installed: [String]

    @Property(id: 4)
    var log: [String]

    @Command(id: 2)
    func install(version: String) {
        installed.append(version)
    }

    @Command(id: 5)
    func configure(_ key: String, to value: Int?, release: Release) {
        log.append("\(key)=\(value.map(String.init) ?? "nil")@\(release.version)/\(release.channel)")
    }

    @Command(id: 6)
    func fail(reason: String) throws {
        log.append("tried \(reason)")
        throw InstallFailure()
    }

    @Command(id: 7)
    func count(_: Int, upTo limit: Int = 3) -> Int {
        log.append("count to \(limit)")
        return limit
    }

    @Command(id: 8)
    func reset() {
        installed = []
        log.append("reset")
    }
}

/// The model map both sides of the synchronization tests use.
func syncModelMap(_ model: ModelKey) -> (any ModelProtocol.Type)? {
    switch model {
    case SyncItem.modelId: return SyncItem.self
    case SyncOwner.modelId: return SyncOwner.self
    case SyncTag.modelId: return SyncTag.self
    case Package.modelId: return Package.self
    default: return nil
    }
}

/// The encoders and decoders the exchange is tested with.
enum SyncCoding: String, CaseIterable, Sendable, CustomStringConvertible {
    case json
    case propertyList

    var encoder: any DataEncoder {
        switch self {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys // comparable bytes
            return encoder
        case .propertyList: return PropertyListEncoder()
        }
    }

    var decoder: any DataDecoder {
        switch self {
        case .json: return JSONDecoder()
        case .propertyList: return PropertyListDecoder()
        }
    }

    var description: String { rawValue }
}
