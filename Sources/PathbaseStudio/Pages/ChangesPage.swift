import Foundation
import Pathbase
import PathbaseSQLite

/// `/changes?from=A&to=B`: what changed between two moments: instances created and deleted,
/// properties changed with their value at A → their value at B.
///
/// A page reads at most ``recordLimit`` records after A (or after its `?after=` cursor) and
/// lists the paths whose first change after A is among them, so a path is on one page only,
/// and the next page starts after the last record read.
struct ChangesPage {

    /// At most this many records are read for one page.
    static let recordLimit = 2000

    let reader: StudioReader
    let layout: StudioLayout
    let from: StudioMoment?
    let to: StudioMoment?
    /// The last record the previous page read; `nil` on the first page.
    var after: Timestamp?

    /// One changed path: its value at A and at B, `nil` where it had none.
    private struct Change {
        let path: Path
        let old: Record?
        let new: Record
    }

    func render() throws -> HTMLText {
        let span = layout.span
        // Without ?from=: just before the file's first record; `nil` (before everything)
        // when that first record is stamped at Int64.min, which has no moment before it.
        let start: StudioMoment? =
            from
            ?? {
                let (before, overflow) = (span?.first ?? 0).subtractingReportingOverflow(1)
                return overflow ? nil : StudioMoment(microseconds: before)
            }()
        let end = to ?? StudioMoment(microseconds: span?.last ?? 0)
        let form: HTMLText = """
            <form class="inline" id="changes-form" method="get" action="/changes">
            <label>from <input type="text" name="from" value="\(start?.text ?? "")" placeholder="the beginning" size="28"></label>
            <label>to <input type="text" name="to" value="\(end.text)" size="28"></label>
            <button type="submit">Compare</button></form>
            """
        guard (start.map { $0.microseconds < end.microseconds }) ?? true else {
            return layout.page(title: "Changes", "\(form)<p class=\"error\">'from' must be before 'to'.</p>")
        }
        let pageStart = after.map { max(start?.timestamp ?? $0, $0) } ?? start?.timestamp
        let scanned = reader.database.records(after: pageStart, limit: Self.recordLimit).filter { $0.timestamp <= end.timestamp }
        let changes = try self.changes(in: scanned, pageStart: pageStart, start: start, end: end)
        let rows = HTMLText(joining: changes.map { row($0, end: end) })
        let next: HTMLText =
            scanned.count == Self.recordLimit
            ? scanned.last.map { last in
                let link = layout.link(to: "/changes", [("from", start.map { String($0.microseconds) }), ("to", String(end.microseconds)), ("after", StudioMoment.cursor(last.timestamp))])
                return "<a id=\"next-page\" href=\"\(link)\">next \(Self.recordLimit) records →</a>"
            } ?? "" : ""
        let through: HTMLText = after.map { " <span class=\"muted\">(records after \(StudioMoment.format($0.time)))</span>" } ?? ""
        return layout.page(
            title: "Changes",
            """
            \(form)
            <p>Between \(start?.text ?? "the beginning") and \(end.text): \(changes.count) path\(changes.count == 1 ? "" : "s") changed\(scanned.count == Self.recordLimit ? " on this page" : "")\(through).</p>
            <table id="changes"><tr><th>change</th><th>model</th><th>instance</th><th>property</th><th>old value</th><th>new value</th><th>at (UTC)</th></tr>\(rows)</table>
            \(next)
            """)
    }

    /// The paths of `scanned` whose first record after `start` is after `pageStart` (earlier
    /// pages list the others), with their values at `start` and at `end`, in path order;
    /// `nil` for either: the beginning.
    private func changes(in scanned: [Record], pageStart: Timestamp?, start: StudioMoment?, end: StudioMoment) throws -> [Change] {
        var changes: [Change] = []
        for instance in Set(scanned.map { ModelInstance(model: $0.path.model, instance: $0.path.instance) }) {
            // Oldest first: the last record of a property at or before a moment is its value then.
            let records = try reader.records(model: instance.model, instance: instance.instance, at: nil, cut: true)
            var old: [PropertyKey: Record] = [:]
            var new: [PropertyKey: Record] = [:]
            var first: [PropertyKey: Timestamp] = [:]
            for record in records where record.timestamp <= end.timestamp {
                let property = record.path.property
                if let start, record.timestamp <= start.timestamp {
                    old[property] = record
                } else {
                    new[property] = record
                    if first[property] == nil { first[property] = record.timestamp }
                }
            }
            for (property, record) in new where (first[property].map { earliest in pageStart.map { earliest > $0 } ?? true }) ?? false {
                changes.append(Change(path: record.path, old: old[property], new: record))
            }
        }
        return changes.sorted { $0.path < $1.path }
    }

    private func row(_ change: Change, end: StudioMoment) -> HTMLText {
        let path = change.path
        let kind: String
        if path.isStatus, let status = change.new.value as? InstanceStatus {
            switch (change.old, status) {
            case (nil, .deleted): kind = "created and deleted"
            case (nil, _): kind = "created"
            case (_, .deleted): kind = "deleted"
            default: kind = "restored"
            }
        } else {
            kind = change.old == nil ? "set" : "changed"
        }
        let link = "/models/\(path.model)/instances/\(path.instance)" + HTML.query([("at", String(end.microseconds))])
        return """
            <tr class="\(kind)"><td>\(kind)</td><td>\(reader.modelName(path.model))</td><td><a href="\(link)">\(path.instance)</a></td>\
            <td>\(reader.propertyName(path.property, of: path.model))</td><td class="value">\(change.old.map { InstancePage.cell($0) } ?? "")</td>\
            <td class="value">\(InstancePage.cell(change.new))</td><td>\(StudioMoment.format(change.new.timestamp.time))</td></tr>
            """
    }
}
