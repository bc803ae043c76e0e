import Foundation
import Pathbase
import PathbaseSQLite

/// `/models/M/instances/I`: every property of an instance (value, type, time of the write
/// and writing replica) now or at a moment, and each property's history, newest first.
struct InstancePage {

    let reader: StudioReader
    let layout: StudioLayout
    let model: ModelKey
    let instance: InstanceKey

    /// Thrown when the instance has no record (at the moment): the page answers 404.
    struct NotFound: Error {}

    func render() throws -> HTMLText {
        let records = try reader.records(model: model, instance: instance, at: layout.moment)
        guard !records.isEmpty else { throw NotFound() }
        let current = StudioReader.newest(records)
        let properties = current.keys.sorted()
        let rows = HTMLText(
            joining: properties.compactMap { property in
                current[property].map { record in
                    """
                    <tr id="property-\(property)"><th>\(reader.propertyName(property, of: model))</th><td class="value">\(ValueText.describe(record.value))</td>\
                    <td>\(ValueText.typeName(record.value))</td><td>\(StudioMoment.format(record.timestamp.time))</td><td>\(record.timestamp.replica)</td></tr>
                    """
                }
            })
        let histories = HTMLText(
            joining: properties.map { property in
                let entries = records.filter { $0.path.property == property }.reversed().map { record -> HTMLText in
                    let moment = StudioMoment(microseconds: record.timestamp.time)
                    let link = "/models/\(model)/instances/\(instance)" + HTML.query([("at", String(moment.microseconds))])
                    return
                        "<li><a href=\"\(link)\">\(moment.text)</a> <span class=\"muted\">#\(record.timestamp.counter)@\(record.timestamp.replica)</span> <span class=\"value\">\(ValueText.describe(record.value))</span></li>"
                }
                return "<h3>\(reader.propertyName(property, of: model))</h3><ol class=\"history\" id=\"history-\(property)\">\(entries)</ol>"
            })
        return layout.page(
            title: "\(reader.modelName(model)), instance \(instance)",
            """
            <p><a href="\(layout.link(to: "/models/\(model)"))">← all of \(reader.modelName(model))</a></p>
            <table id="properties"><tr><th>property</th><th>value</th><th>type</th><th>written at (UTC)</th><th>by replica</th></tr>\(rows)</table>
            <h2>History, newest first</h2>
            \(reader.database.keepsHistory ? "" : HTMLText("<p class=\"muted\">This file keeps no history: current values only.</p>"))
            \(histories)
            """)
    }
}
