import Foundation
import Pathbase
import PathbaseSQLite

/// `/changes?from=A&to=B`: what changed between two moments: instances created and deleted,
/// properties changed with old value → new value.
struct ChangesPage {

    /// At most this many records after A are read for one page.
    static let recordLimit = 2000

    let reader: StudioReader
    let layout: StudioLayout
    let from: StudioMoment?
    let to: StudioMoment?

    func render() throws -> HTMLText {
        let span = layout.span
        let start = from ?? StudioMoment(microseconds: (span?.first ?? 0) - 1)
        let end = to ?? StudioMoment(microseconds: span?.last ?? 0)
        let form: HTMLText = """
            <form class="inline" id="changes-form" method="get" action="/changes">
            <label>from <input type="text" name="from" value="\(start.text)" size="28"></label>
            <label>to <input type="text" name="to" value="\(end.text)" size="28"></label>
            <button type="submit">Compare</button></form>
            """
        guard start.microseconds < end.microseconds else {
            return layout.page(title: "Changes", "\(form)<p class=\"error\">'from' must be before 'to'.</p>")
        }
        let scanned = reader.database.records(after: start.timestamp, limit: Self.recordLimit)
        let newest = Dictionary(scanned.filter { $0.timestamp <= end.timestamp }.map { ($0.path, $0) }) { first, second in
            first.timestamp < second.timestamp ? second : first
        }
        var before: [ModelInstance: StudioReader.Values] = [:]
        for instance in Set(newest.keys.map { ModelInstance(model: $0.model, instance: $0.instance) }) {
            before[instance] = try reader.values(model: instance.model, instance: instance.instance, at: start)
        }
        let rows = HTMLText(
            joining: newest.values.sorted { ($0.path, $0.timestamp) < ($1.path, $1.timestamp) }.map { record in
                let path = record.path
                let old = before[ModelInstance(model: path.model, instance: path.instance)]?[path.property]
                let change: String
                if path.isStatus, let status = record.value as? InstanceStatus {
                    switch (old, status) {
                    case (nil, .deleted): change = "created and deleted"
                    case (nil, _): change = "created"
                    case (_, .deleted): change = "deleted"
                    default: change = "restored"
                    }
                } else {
                    change = old == nil ? "set" : "changed"
                }
                let link = "/models/\(path.model)/instances/\(path.instance)" + HTML.query([("at", String(end.microseconds))])
                return """
                    <tr class="\(change)"><td>\(change)</td><td>\(reader.modelName(path.model))</td><td><a href="\(link)">\(path.instance)</a></td>\
                    <td>\(reader.propertyName(path.property, of: path.model))</td><td class="value">\(old.map { ValueText.describe($0.value) } ?? "")</td>\
                    <td class="value">\(ValueText.describe(record.value))</td><td>\(StudioMoment.format(record.timestamp.time))</td></tr>
                    """
            })
        let cut: HTMLText =
            scanned.count == Self.recordLimit && (scanned.last?.timestamp).map({ $0 <= end.timestamp }) == true
            ? "<p class=\"muted\">Only the first \(Self.recordLimit) records after 'from' were compared: narrow the span to see the rest.</p>" : ""
        return layout.page(
            title: "Changes",
            """
            \(form)
            <p>Between \(start.text) and \(end.text): \(newest.count) path\(newest.count == 1 ? "" : "s") changed.</p>
            \(cut)
            <table id="changes"><tr><th>change</th><th>model</th><th>instance</th><th>property</th><th>old value</th><th>new value</th><th>at (UTC)</th></tr>\(rows)</table>
            """)
    }
}
