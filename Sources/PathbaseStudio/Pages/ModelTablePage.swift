import Foundation
import Pathbase
import PathbaseSQLite

/// `/models/M`: a table of a model's instances, one column per property, 100 rows a page.
///
/// Now, with the default "active" filter, a filter on a property's value and a sort run
/// through the same SQL push-down as queries on models (`QueryPushdownDatabase`), paged by
/// offset; otherwise pages are keyset pages by instance id (`?after=`), and a filter at a
/// moment is checked on each listed instance's value then.
///
/// A filter on a property the file has no value index of is a bounded scan instead
/// (``StudioScan``): each page reads at most ``StudioScan/window`` instances in id order and
/// links to the next window.
struct ModelTablePage {

    static let pageSize = 100

    /// At most this many properties are columns.
    static let columnLimit = 50

    let reader: StudioReader
    let layout: StudioLayout
    let model: ModelKey
    let query: TableQuery

    /// The table's parameters, from the URL.
    struct TableQuery {
        enum StatusFilter: String { case active, deleted, all }
        var status: StatusFilter = .active
        var after: InstanceKey?
        var offset = 0
        var sort: PropertyKey?
        var descending = false
        var filterProperty: PropertyKey?
        var filterValue: String?

        var parameters: [(String, String?)] {
            [
                ("status", status == .active ? nil : status.rawValue), ("sort", sort.map(String.init)), ("order", descending ? "desc" : nil),
                ("filter", filterProperty.map(String.init)), ("value", filterProperty == nil ? nil : filterValue)
            ]
        }
    }

    func render() throws -> HTMLText {
        let database = reader.database
        let moment = layout.moment
        var rows: [(instance: InstanceKey, status: InstanceStatus, values: StudioReader.Values)] = []
        var next: (String, String)?
        var nextLabel = "next \(Self.pageSize) →"
        var note: HTMLText = ""
        let filterOperand = try operand()
        if moment == nil, query.status == .active, query.sort == nil, let filterOperand, let property = query.filterProperty,
            !database.hasValueIndex(model: model, property: property),
            let window = database.scanInstances(
                of: model, where: StudioScan.equality(property, filterOperand.type, filterOperand.operand), after: query.after, window: StudioScan.window, limit: Self.pageSize)
        {
            for id in window.matches {
                rows.append((id, .created, try reader.values(model: model, instance: id, at: nil)))
            }
            let name = reader.propertyName(property, of: model)
            let through = window.resumeAfter.map { "up to instance \($0)" } ?? "to the last instance"
            note = """
                <p class="muted" id="scanned">The file has no index of \(name) (an app's query on it makes one): \
                this page scanned at most \(StudioScan.window) instances\(query.after.map { " after \($0)" } ?? ""), \(through).</p>
                """
            if let resume = window.resumeAfter { next = ("after", String(resume)) }
            nextLabel = "scan on →"
        } else if moment == nil, query.status == .active, query.sort != nil || filterOperand != nil,
            let ids = pushedDown(filter: filterOperand)
        {
            // One more than a page tells whether there is a next page.
            for id in ids.prefix(Self.pageSize) {
                rows.append((id, .created, try reader.values(model: model, instance: id, at: nil)))
            }
            let (nextOffset, overflow) = query.offset.addingReportingOverflow(Self.pageSize)
            if ids.count > Self.pageSize, !overflow { next = ("offset", String(nextOffset)) }
            note = "<p class=\"muted\" id=\"pushed-down\">Filtered and sorted in SQL, as queries on models are.</p>"
        } else {
            let status: InstanceStatus? =
                switch query.status {
                case .active: .created
                case .deleted: .deleted
                case .all: nil
                }
            var after = query.after
            // A filter checked here scans at most this many instances for one page.
            var scanned = 0
            scanning: while rows.count < Self.pageSize, scanned < 20 * Self.pageSize {
                let batch = try database.instanceStatuses(model: model, at: moment?.timestamp, status: status, after: after, limit: Self.pageSize)
                for (instance, instanceStatus) in batch {
                    scanned += 1
                    after = instance
                    let values = try reader.values(model: model, instance: instance, at: moment)
                    if let filterOperand, let property = query.filterProperty, !Self.matches(values[property]?.value, filterOperand) { continue }
                    rows.append((instance, instanceStatus, values))
                    if rows.count == Self.pageSize { break scanning }
                }
                if batch.count < Self.pageSize {
                    after = nil
                    break
                }
            }
            if let after { next = ("after", String(after)) }
            if query.sort != nil { note = "<p class=\"muted\">Sorting reads current values: shown by id for this status or moment.</p>" }
        }
        let allProperties = Array(Set(rows.flatMap { $0.values.keys }).subtracting([PropertyKey.instanceId])).sorted()
        // A page stays small whatever the instances hold: at most this many columns.
        let properties = Array(allProperties.prefix(Self.columnLimit))
        if allProperties.count > properties.count {
            note = "\(note)<p class=\"muted\" id=\"more-columns\">\(allProperties.count - properties.count) more properties, not shown (a page shows \(Self.columnLimit) columns).</p>"
        }
        return layout.page(
            title: reader.modelName(model),
            """
            \(filterForm(properties: properties))
            \(note)
            <table id="instances"><tr><th>instance</th><th>status</th>\(HTMLText(joining: properties.map(header)))</tr>
            \(HTMLText(joining: rows.map { self.row($0, properties: properties) }))
            </table>
            \(rows.isEmpty ? HTMLText("<p class=\"muted\" id=\"no-rows\">No instances.</p>") : "")
            \(next.map { next -> HTMLText in "<a id=\"next-page\" href=\"\(layout.link(to: "/models/\(model)", query.parameters + [next]))\">\(nextLabel)</a>" } ?? "")
            """)
    }

    private func header(_ property: PropertyKey) -> HTMLText {
        var sorted = query
        sorted.descending = query.sort == property && !query.descending
        sorted.sort = property
        let arrow = query.sort == property ? (query.descending ? " ↓" : " ↑") : ""
        return "<th><a href=\"\(layout.link(to: "/models/\(model)", sorted.parameters))\">\(reader.propertyName(property, of: model))\(arrow)</a></th>"
    }

    private func row(_ row: (instance: InstanceKey, status: InstanceStatus, values: StudioReader.Values), properties: [PropertyKey]) -> HTMLText {
        let cells = HTMLText(
            joining: properties.map { property in
                "<td class=\"value\">\(row.values[property].map { InstancePage.cell($0) } ?? "")</td>"
            })
        return """
            <tr class="\(row.status == .deleted ? "deleted" : "")"><td><a href="\(layout.link(to: "/models/\(model)/instances/\(row.instance)"))">\(row.instance)</a></td>\
            <td>\("\(row.status)")</td>\(cells)</tr>
            """
    }

    private func filterForm(properties: [PropertyKey]) -> HTMLText {
        let options = HTMLText(
            joining: properties.map { property in
                "<option value=\"\(property)\"\(query.filterProperty == property ? " selected" : "")>\(reader.propertyName(property, of: model))</option>"
            })
        let statuses = HTMLText(
            joining: [TableQuery.StatusFilter.active, .deleted, .all].map { status in
                "<option value=\"\(status.rawValue)\"\(query.status == status ? " selected" : "")>\(status.rawValue)</option>"
            })
        let at: HTMLText = layout.moment.map { "<input type=\"hidden\" name=\"at\" value=\"\($0.microseconds)\">" } ?? ""
        return """
            <form class="inline" id="filter" method="get" action="/models/\(model)">\(at)
            <label>status <select name="status">\(statuses)</select></label>
            <label>where <select name="filter"><option value="">(no filter)</option>\(options)</select></label>
            <label>is <input type="text" name="value" value="\(query.filterValue ?? "")"></label>
            <button type="submit">Filter</button></form>
            """
    }

    /// How a property's values are stored, read from the first of 50 instances that has
    /// one: what a filter's text is parsed as and what a sort compares.
    private enum StoredKind {
        case integer, real, flag, text
    }

    private func storedKind(of property: PropertyKey) throws -> StoredKind {
        let sample = try reader.database.instanceStatuses(model: model, at: nil, status: nil, after: nil, limit: 50).lazy
            .compactMap { try? reader.database.currentRecords(model: model, instance: $0.instance).first { $0.path.property == property } }
            .first
        switch sample?.value {
        case is Int, is Int?: return .integer
        case is Double, is Double?: return .real
        case is Bool, is Bool?: return .flag
        default: return .text
        }
    }

    /// The filter's value as the type the property is stored as, `nil` without a filter.
    private func operand() throws -> (type: any QueryableValue.Type, operand: QueryOperand)? {
        guard let property = query.filterProperty, let text = query.filterValue else { return nil }
        switch try storedKind(of: property) {
        case .integer:
            guard let number = Int64(text) else { throw StudioInputError("\(reader.propertyName(property, of: model)) holds integers: '\(text)' is not one") }
            return (Int.self, .integer(number))
        case .real:
            guard let number = Double(text) else { throw StudioInputError("\(reader.propertyName(property, of: model)) holds numbers: '\(text)' is not one") }
            return (Double.self, .real(number))
        case .flag:
            guard let flag = Bool(text) else { throw StudioInputError("\(reader.propertyName(property, of: model)) holds true or false, not '\(text)'") }
            return (Bool.self, .integer(flag ? 1 : 0))
        case .text:
            return (String.self, .text(text))
        }
    }

    /// The active instances matching the filter, in the sort's order, one page from the
    /// offset plus one; `nil` when the database cannot run it in SQL.
    private func pushedDown(filter: (type: any QueryableValue.Type, operand: QueryOperand)?) -> [InstanceKey]? {
        let predicate = filter.flatMap { filter in query.filterProperty.map { StudioScan.equality($0, filter.type, filter.operand) } }
        let sort = query.sort.flatMap { property -> StoredSort? in
            let (type, empty): (any QueryableValue.Type, QueryOperand) =
                switch (try? storedKind(of: property)) ?? .text {
                case .integer: (Int.self, .integer(0))
                case .real: (Double.self, .real(0))
                case .flag: (Bool.self, .integer(0))
                case .text: (String.self, .text(""))
                }
            return StoredSort(propertyId: property, storedAs: type, defaultValue: empty, reverse: query.descending)
        }
        if predicate == nil, let sort {
            // The whole order is read once and kept until the file changes: later pages and
            // sorts back to it cost no scan.
            return reader.database.sortedInstanceIds(of: model, sortedBy: sort, offset: query.offset, limit: Self.pageSize + 1)
        }
        return reader.database.instanceIds(of: model, where: predicate, sortedBy: sort, offset: query.offset, limit: Self.pageSize + 1, readingValues: false)
    }

    /// A value checked against the filter where SQL does not run it.
    static func matches(_ value: (any DatabaseValue)?, _ filter: (type: any QueryableValue.Type, operand: QueryOperand)) -> Bool {
        switch (value, filter.operand) {
        case (let value as Int, .integer(let operand)): Int64(value) == operand
        case (let value as Bool, .integer(let operand)): (value ? 1 : 0) == operand
        case (let value as Double, .real(let operand)): value == operand
        case (let value as String, .text(let operand)): value == operand
        default: false
        }
    }
}
