import Foundation
import Pathbase
import PathbaseSQLite

/// `/models/M/instances/I`: every property of an instance (value, type, time of the write
/// and writing replica) now or at a moment; references as links to the instances they point
/// at and the instances that point at this one ("referenced by", see ``StudioReferences``);
/// assets previewed (images inline, audio and video in players, other files to download,
/// all from ``AssetDownload``); and each property's history, newest first.
///
/// The page stays small whatever the instance holds: at most ``propertyLimit`` properties
/// and the newest ``historyLimit`` versions of each (a link shows the instance just before
/// the oldest shown, with the versions before it); a current value shows at most
/// ``ValueText/shownBytes`` bytes (``pageBudget`` in all, then ``historyBytes`` each), a
/// version in the history ``historyBytes``, a reference list ``referenceLimit`` links, each
/// cut value with a link to the whole value (`/models/M/instances/I/properties/P`).
struct InstancePage {

    /// At most this many properties are listed.
    static let propertyLimit = 200

    /// At most this many versions of a property are listed, newest first.
    static let historyLimit = 10

    /// At most this many bytes of a version in the history are shown.
    static let historyBytes = 200

    /// At most this many bytes of current values are shown on one page, in property order.
    static let pageBudget = 128 * 1024

    /// At most this many references of a list are links.
    static let referenceLimit = 100

    let reader: StudioReader
    let layout: StudioLayout
    let model: ModelKey
    let instance: InstanceKey

    /// Thrown when the instance has no record (at the moment): the page answers 404.
    struct NotFound: Error {}

    private var references: StudioReferences { StudioReferences(database: reader.database) }

    func render() throws -> HTMLText {
        let records = try reader.records(model: model, instance: instance, at: layout.moment, cut: true)
        guard !records.isEmpty else { throw NotFound() }
        let current = StudioReader.newest(records)
        let allProperties = current.keys.sorted()
        let properties = Array(allProperties.prefix(Self.propertyLimit))
        let targets = Dictionary(uniqueKeysWithValues: properties.compactMap { property in references.target(of: property, in: model).map { (property, $0) } })
        var budget = Self.pageBudget
        let rows = HTMLText(
            joining: properties.compactMap { property in
                current[property].map { record -> HTMLText in
                    let shown = budget >= ValueText.shownBytes ? ValueText.shownBytes : Self.historyBytes
                    budget -= shown
                    return """
                        <tr id="property-\(property)"><th>\(reader.propertyName(property, of: model))</th>\
                        <td class="value">\(value(record, target: targets[property], previews: true, bytes: shown))</td>\
                        <td>\(typeName(record.value, target: targets[property]))</td><td>\(StudioMoment.format(record.timestamp.time))</td><td>\(record.timestamp.replica)</td></tr>
                        """
                }
            })
        let more: HTMLText =
            allProperties.count > properties.count
            ? "<p class=\"muted\" id=\"more-properties\">and \(allProperties.count - properties.count) more properties, not shown (a page shows \(Self.propertyLimit)).</p>" : ""
        let histories = HTMLText(
            joining: properties.map { property in
                let versions = records.filter { $0.path.property == property }
                let shown = versions.suffix(Self.historyLimit).reversed()
                let entries = shown.map { record -> HTMLText in
                    let moment = StudioMoment(microseconds: record.timestamp.time)
                    let link = "/models/\(model)/instances/\(instance)" + HTML.query([("at", String(moment.microseconds))])
                    return """
                        <li><a href="\(link)">\(moment.text)</a> <span class="muted">#\(record.timestamp.counter)@\(record.timestamp.replica)</span> \
                        <span class="value">\(value(record, target: targets[property], previews: false, bytes: Self.historyBytes))</span></li>
                        """
                }
                var older: HTMLText = ""
                if versions.count > shown.count, let oldest = shown.last {
                    // The instance just before the oldest version shown: its history lists the older ones.
                    let (before, overflow) = oldest.timestamp.time.subtractingReportingOverflow(1)
                    let link = "/models/\(model)/instances/\(instance)" + HTML.query([("at", overflow ? nil : String(before))])
                    older = "<p class=\"muted\"><a class=\"older\" href=\"\(link)\">\(versions.count - shown.count) older versions →</a></p>"
                }
                return "<h3>\(reader.propertyName(property, of: model))</h3><ol class=\"history\" id=\"history-\(property)\">\(HTMLText(joining: Array(entries)))</ol>\(older)"
            })
        let referrers = try referencedBy()
        return layout.page(
            title: "\(reader.modelName(model)), instance \(instance)",
            """
            <p><a href="\(layout.link(to: "/models/\(model)"))">← all of \(reader.modelName(model))</a></p>
            <table id="properties"><tr><th>property</th><th>value</th><th>type</th><th>written at (UTC)</th><th>by replica</th></tr>\(rows)</table>
            \(more)
            \(referrers)
            <h2>History, newest first</h2>
            \(reader.database.keepsHistory ? "" : HTMLText("<p class=\"muted\">This file keeps no history: current values only.</p>"))
            \(histories)
            """)
    }

    /// What the type column says: "reference to Author", "list of Author", or the stored
    /// value's Swift type.
    private func typeName(_ value: any DatabaseValue, target: StudioReferences.Target?) -> String {
        guard let target else { return ValueText.typeName(value) }
        let name = reader.typeName(target.model)
        switch target.kind {
        case .reference: return "reference to \(name)"
        case .referenceList: return "list of \(name)"
        case .referenceDictionary: return "dictionary of \(name)"
        case .property: return ValueText.typeName(value)
        }
    }

    /// A value: a reference as links to the instances it points at (at the page's moment),
    /// assets with their previews (or links, in the history), anything else as text, cut
    /// at `bytes` with a link to the whole value.
    private func value(_ record: Record, target: StudioReferences.Target?, previews: Bool, bytes: Int) -> HTMLText {
        if let target, let ids = StudioReferences.instances(in: record.value, kind: target.kind) {
            guard !ids.isEmpty else { return target.kind == .reference ? "nil" : "[]" }
            let links = HTMLText(
                joining: ids.prefix(Self.referenceLimit).enumerated().map { index, id -> HTMLText in
                    let link = layout.link(to: "/models/\(target.model)/instances/\(id)")
                    return "\(index == 0 ? "" : ", ")<a class=\"reference\" href=\"\(link)\">\(reader.modelName(target.model)) \(id)</a>"
                })
            guard ids.count > Self.referenceLimit else { return links }
            return "\(links) <span class=\"muted\">and \(ids.count - Self.referenceLimit) more</span> \(wholeValue(record))"
        }
        var assets = Set<Asset>()
        // A cut string or bytes holds no asset, as the whole one would not.
        if !(record.value is ValuePrefix) { try? AssetReferences.collect(record.value, into: &assets) }
        let described = ValueText.describe(record.value)
        let (cut, wasCut) = ValueText.cut(described, bytes: bytes)
        let text: HTMLText = wasCut ? "\(cut) \(wholeValue(record, size: ValueText.byteCount(of: record.value, described: described)))" : "\(described)"
        guard !assets.isEmpty else { return text }
        let shown = HTMLText(
            joining: assets.sorted { $0.hash < $1.hash }.prefix(Self.referenceLimit).map { asset -> HTMLText in
                previews ? preview(asset) : "<br><a href=\"/assets/\(asset.hash)\">asset \(String(asset.hash.prefix(12)))…</a>"
            })
        return "\(text)\(shown)"
    }

    /// A link to the whole of a record's value, served as text (``StudioServer``).
    private func wholeValue(_ record: Record, size: Int? = nil) -> HTMLText {
        Self.wholeValue(record, size: size)
    }

    /// A link to the whole of a record's value (`/models/M/instances/I/properties/P?version=`).
    static func wholeValue(_ record: Record, size: Int? = nil) -> HTMLText {
        let path = record.path
        let link = "/models/\(path.model)/instances/\(path.instance)/properties/\(path.property)" + HTML.query([("version", StudioMoment.cursor(record.timestamp))])
        return "<a class=\"whole-value\" href=\"\(link)\">whole value\(size.map { " (\($0) bytes)" } ?? "") →</a>"
    }

    /// A value as a table cell shows it: at most `limit` scalars, with a link to the whole
    /// value when cut.
    static func cell(_ record: Record, limit: Int = 80) -> HTMLText {
        let described = ValueText.describe(record.value)
        let (cut, wasCut) = ValueText.cut(described, bytes: 4 * limit, scalars: limit)
        return wasCut ? "\(cut) \(wholeValue(record, size: ValueText.byteCount(of: record.value, described: described)))" : "\(described)"
    }

    /// An asset as the page shows it: an image inline, audio or video in a player, anything
    /// else as a download; each with a download link.
    private func preview(_ asset: Asset) -> HTMLText {
        let address = "/assets/\(asset.hash)"
        let store = reader.database.assets
        guard store.contains(asset) else {
            return "<div class=\"asset missing\">asset \(String(asset.hash.prefix(12)))…: not in the file's asset folder (a replica downloads assets after their records)</div>"
        }
        let type = AssetContentType.of(fileAt: store.fileURL(for: asset))
        let player: HTMLText =
            switch AssetContentType.preview(of: type) {
            case .image: "<img src=\"\(address)\" alt=\"asset \(String(asset.hash.prefix(12)))\" loading=\"lazy\">"
            case .audio: "<audio controls preload=\"metadata\" src=\"\(address)\"></audio>"
            case .video: "<video controls preload=\"metadata\" src=\"\(address)\"></video>"
            case .download: ""
            }
        return """
            <div class="asset" data-type="\(type)">\(player)<a href="\(address)" download="\(asset.hash)">download \(asset.size) bytes (\(type))</a></div>
            """
    }

    /// The instances that point at this one now, through each referencing property.
    private func referencedBy() throws -> HTMLText {
        let groups = try references.referrers(of: instance, model: model)
        let note: HTMLText = layout.moment == nil ? "" : " <span class=\"muted\">(now: references are looked up in current values)</span>"
        guard !groups.isEmpty else { return "<h2>Referenced by\(note)</h2><p class=\"muted\" id=\"referenced-by\">No instance references this one.</p>" }
        let shownLimit = 100
        let rows = HTMLText(
            joining: groups.map { group in
                let links = HTMLText(
                    joining: group.instances.prefix(shownLimit).enumerated().map { index, id -> HTMLText in
                        "\(index == 0 ? "" : ", ")<a class=\"referrer\" href=\"/models/\(group.model)/instances/\(id)\">\(id)</a>"
                    })
                var more: HTMLText = group.instances.count > shownLimit ? " <span class=\"muted\">and \(group.instances.count - shownLimit) more</span>" : ""
                var count: HTMLText = "\(group.instances.count)"
                if let through = group.scannedThrough {
                    // A bounded scan (no index of the property in the file): the rest is
                    // the referring model's table filtered on this instance, from there on.
                    let rest = layout.link(to: "/models/\(group.model)", [("filter", String(group.property)), ("value", String(instance)), ("after", String(through))])
                    count = "\(group.instances.count) <span class=\"muted\">up to instance \(through)</span>"
                    more = "\(more) <a class=\"scan-on\" href=\"\(rest)\">scan the rest of \(reader.modelName(group.model)) →</a>"
                }
                return """
                    <tr><td>\(reader.modelName(group.model))</td><td>\(reader.propertyName(group.property, of: group.model))</td>\
                    <td>\(count)</td><td>\(links)\(more)</td></tr>
                    """
            })
        return """
            <h2>Referenced by\(note)</h2>
            <table id="referenced-by"><tr><th>model</th><th>through</th><th>instances</th><th></th></tr>\(rows)</table>
            """
    }
}
