import Foundation
import Pathbase
import PathbaseSQLite

/// `/records`: the raw records in time order, 100 a page (`?after=time.counter.replica`),
/// up to the moment shown: what sync pushes and pulls.
struct RecordsPage {

    static let pageSize = 100

    let reader: StudioReader
    let layout: StudioLayout
    let after: Timestamp?

    func render() throws -> HTMLText {
        var records = reader.database.records(after: after, limit: Self.pageSize + 1)
        if let moment = layout.moment { records = records.filter { $0.timestamp <= moment.timestamp } }
        let page = records.prefix(Self.pageSize)
        let rows = HTMLText(
            joining: page.map { record in
                let path = record.path
                return """
                    <tr><td>\(StudioMoment.format(record.timestamp.time))</td><td>\(record.timestamp.counter)</td><td>\(record.timestamp.replica)</td>\
                    <td>\(reader.modelName(path.model))</td><td><a href="\(layout.link(to: "/models/\(path.model)/instances/\(path.instance)"))">\(path.instance)</a></td>\
                    <td>\(reader.propertyName(path.property, of: path.model))</td><td class="value">\(InstancePage.cell(record))</td></tr>
                    """
            })
        let next: HTMLText =
            records.count > Self.pageSize
            ? page.last.map { last in
                "<a id=\"next-page\" href=\"\(layout.link(to: "/records", [("after", StudioMoment.cursor(last.timestamp))]))\">next \(Self.pageSize) →</a>"
            } ?? "" : ""
        return layout.page(
            title: "Records",
            """
            <p class="muted">Every record in time order (time, counter, replica), as sync exchanges them.</p>
            <table id="records"><tr><th>time (UTC)</th><th>counter</th><th>replica</th><th>model</th><th>instance</th><th>property</th><th>value</th></tr>\(rows)</table>
            \(next)
            """)
    }
}
