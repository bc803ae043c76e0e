import Foundation
import Pathbase
import PathbaseSQLite

/// References between instances as Studio's instance page shows them: which properties
/// point at another model (from the file's catalog of `@Model` types, ``ModelDescription``),
/// and which instances point at a given one ("referenced by").
///
/// "Referenced by" runs the inverse lookup that `referrers(through:)` runs in the Swift API
/// (`InverseLookupDatabase.referrers(of:model:property:inList:)`), once per property of the
/// catalog that references the instance's model: current values, active referrers only. On
/// a read-only file that lacks the property's value index, the lookup does not create it
/// (it never writes there): a `@Reference` is then looked up by a bounded scan of the
/// referring model's first ``StudioScan/window`` instances, and the result says where the
/// scan stopped (a reference list's lookup reads `list_members`, which needs no index).
///
/// A file written without the catalog has no reference targets: its references show as
/// numbers and nothing is "referenced by".
struct StudioReferences {

    let database: SQLiteDatabase

    /// A property that points at instances of another model.
    struct Target: Equatable {
        let model: ModelKey
        let kind: ModelDescription.Property.Kind
    }

    /// The instances of one model that point at an instance through one property.
    struct Referrers: Equatable {
        let model: ModelKey
        let property: PropertyKey
        let instances: [InstanceKey]
        /// When the lookup was a bounded scan that did not reach the referring model's last
        /// instance: the last instance it read (``instances`` are those up to it).
        var scannedThrough: InstanceKey? = nil
    }

    /// The model `property` of `model` points at, `nil` for a value or an unknown property.
    func target(of property: PropertyKey, in model: ModelKey) -> Target? {
        guard let described = database.modelDescription(of: model)?.properties.first(where: { $0.id == property }),
            described.kind != .property, let target = described.target
        else { return nil }
        return Target(model: target, kind: described.kind)
    }

    /// The active instances whose current value of a `@Reference` or `@ReferenceList` points
    /// at `instance` of `model`, per referring (model, property) with any, in model and
    /// property order; instances ascending. (`@ReferenceDictionary`s have no inverse lookup.)
    func referrers(of instance: InstanceKey, model: ModelKey) throws -> [Referrers] {
        var found: [Referrers] = []
        for referring in try database.storedModels() {
            guard let description = database.modelDescription(of: referring) else { continue }
            for property in description.properties where property.target == model {
                let inList: Bool
                switch property.kind {
                case .reference: inList = false
                case .referenceList: inList = true
                case .property, .referenceDictionary: continue
                }
                if !inList, !database.hasValueIndex(model: referring, property: property.id),
                    let scan = database.scanInstances(
                        of: referring, where: StudioScan.equality(property.id, Int.self, .integer(Int64(instance))), after: nil, window: StudioScan.window,
                        limit: .max)
                {
                    if !scan.matches.isEmpty || scan.resumeAfter != nil {
                        found.append(Referrers(model: referring, property: property.id, instances: scan.matches, scannedThrough: scan.resumeAfter))
                    }
                    continue
                }
                let instances = database.referrers(of: instance, model: referring, property: property.id, inList: inList) ?? []
                if !instances.isEmpty { found.append(Referrers(model: referring, property: property.id, instances: instances)) }
            }
        }
        return found
    }

    /// The instance ids a reference's stored value holds: one for a `@Reference` (none when
    /// `nil`), each element of a `@ReferenceList`; `nil` when the value is not of that form.
    static func instances(in value: any DatabaseValue, kind: ModelDescription.Property.Kind) -> [InstanceKey]? {
        switch (kind, value) {
        case (.reference, let id as Int): [id]
        case (.reference, let id as Int?): id.map { [$0] } ?? []
        case (.referenceList, let ids as [Int]): ids
        default: nil
        }
    }
}
