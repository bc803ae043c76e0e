import Foundation
import Pathbase
import PathbaseSQLite

/// `/`: the file (size, format, history, replica, sync state) and its models and collections
/// with their numbers of active and deleted instances, now or at a moment.
struct OverviewPage {

    let reader: StudioReader
    let layout: StudioLayout

    func render() throws -> HTMLText {
        let database = reader.database
        let moment = layout.moment
        var rows: [HTMLText] = []
        for summary in try database.modelSummaries() {
            var created = summary.created
            var deleted = summary.deleted
            if let moment {
                let statuses = try database.instanceStatuses(model: summary.model, at: moment.timestamp, status: nil, after: nil, limit: .max)
                created = statuses.count { $0.status == .created }
                deleted = statuses.count - created
                if statuses.isEmpty { continue }
            }
            let names = reader.names(of: summary.model)
            let fields = names.collection.map { $0.fields.keys.sorted() } ?? names.model.map { $0.properties.map(\.name) } ?? []
            rows.append(
                """
                <tr><td><a href="\(layout.link(to: "/models/\(summary.model)"))">\(reader.modelName(summary.model))</a></td>\
                <td>\(created)</td><td>\(deleted)</td><td>\(Self.fieldList(fields))</td></tr>
                """)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: reader.path)[.size] as? Int) ?? 0
        let identity = try database.storedReplicaIdentity()
        let models: HTMLText =
            rows.isEmpty
            ? "<p class=\"muted\">No instances\(moment == nil ? "" : " at this moment").</p>"
            : "<table id=\"models\"><tr><th>model</th><th>active</th><th>deleted</th><th>fields</th></tr>\(rows)</table>"
        return layout.page(
            title: "Overview",
            """
            <table id="file">
            <tr><th>file</th><td>\(reader.path)</td></tr>
            <tr><th>size</th><td>\(size) bytes</td></tr>
            <tr><th>format</th><td>SQLite, Pathbase storage format \(SQLiteDatabase.storageFormat)</td></tr>
            <tr><th>history</th><td>\(database.keepsHistory ? "kept: every past value can be shown" : "not kept: current values only")</td></tr>
            <tr><th>replica</th><td>\(identity.map { "\($0.id)" } ?? "none yet (never synced)")</td></tr>
            \(syncState())
            </table>
            <h2>Models and collections</h2>
            \(models)
            """)
    }

    /// At most 50 field names of at most ``ValueText/nameLimit`` scalars each.
    private static func fieldList(_ fields: [String]) -> String {
        let shown = fields.prefix(50).map { ValueText.short($0, limit: ValueText.nameLimit) }.joined(separator: ", ")
        return fields.count > 50 ? "\(shown) and \(fields.count - 50) more" : shown
    }

    /// The outbox as `pathbase status` shows it, for a file that is a replica.
    private func syncState() -> HTMLText {
        let shownLimit = 1000
        guard let state = ReplicaStateSummary(of: reader.database, pendingLimit: shownLimit + 1) else {
            return "<tr><th>sync</th><td>never synced</td></tr>"
        }
        let reasons = HTMLText(joining: state.rejected.prefix(50).map { "<li>\("\($0.key)"): \(ValueText.short($0.reason, limit: 500))</li>" })
        let assets = HTMLText(joining: state.awaitedAssets.prefix(50).map { "<li>\("\($0)")</li>" })
        return """
            <tr><th>pending records</th><td id="pending">\(state.pending > shownLimit ? "more than \(shownLimit)" : "\(state.pending)")</td></tr>
            <tr><th>rejected records</th><td>\(state.rejected.count)<ul id="rejected">\(reasons)</ul></td></tr>
            <tr><th>pull cursor</th><td>\("\(state.pullCursor)")</td></tr>
            <tr><th>awaited assets</th><td>\(state.awaitedAssets.count)<ul>\(assets)</ul></td></tr>
            """
    }
}
