import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Pathbase
import PathbaseSQLite

/// Pathbase Studio: a web interface that browses a database file and its past, read-only.
///
/// ```swift
/// let database = try SQLiteDatabase(path: "app.sqlite", options: .init(readOnly: true))
/// let studio = StudioServer(database: database, path: "app.sqlite")
/// try await studio.run { url in print("open", url) }   // until SIGINT or SIGTERM
/// ```
///
/// Pages: the overview (`/`), a model's table (`/models/M`), an instance (`/models/M/instances/I`),
/// the changes between two moments (`/changes`) and the raw records (`/records`); each
/// takes `?at=` to show the database as it was at that moment. `/assets/HASH` serves an
/// asset's content from the file's asset folder, with `Range` requests (see the instance
/// page's previews); `/models/M/instances/I/properties/P?version=` the whole of a value
/// the pages cut (they show at most 4 KiB of one). On an address other than loopback every
/// request needs ``token`` (see `pathbase studio --help`); on every address a request
/// addressed (`Host`) to another site's name is refused with 421.
public struct StudioServer: Sendable {

    /// The token requests need on a non-loopback address, `nil` on loopback.
    public let token: String?

    private let reader: StudioReader
    private let host: String
    private let port: Int
    private let hosts: StudioHosts
    private let listening = ListeningPort()
    private let logger: Logger

    /// A Studio on `database` (opened read-only by the caller), listening on `host:port`
    /// (port 0: a free one). A host other than localhost, an address in 127.0.0.0/8 or ::1
    /// gets a new random ``token``. Requests are answered only when their `Host` is a
    /// loopback name or address, `host` or one of `allowedHosts`, with the port listened on
    /// (off loopback also any IP address and this machine's name); others get a 421 with
    /// the reason, which keeps pages of other sites out (DNS rebinding).
    public init(
        database: SQLiteDatabase, path: String, host: String = "127.0.0.1", port: Int = 8090, allowedHosts: [String] = [],
        logger: Logger = Logger(label: "pathbase.studio")
    ) {
        reader = StudioReader(database: database, path: path)
        self.host = host
        self.port = port
        self.logger = logger
        hosts = StudioHosts(bound: host, allowed: allowedHosts)
        token = Self.isLoopback(host) ? nil : StudioAccess<BasicRequestContext>.newToken()
    }

    /// Whether an address only this machine can reach: `localhost`, an IP address in
    /// 127.0.0.0/8 or `::1`. A name that merely starts with `127.` is not.
    public static func isLoopback(_ host: String) -> Bool {
        StudioHosts.isLoopback(host)
    }

    /// Serves until SIGINT or SIGTERM; `onListening` gets the address to open (with the
    /// token when there is one).
    public func run(onListening: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        let host = self.host
        let token = self.token
        let listening = self.listening
        let application = Application(
            router: router(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "pathbase-studio"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                listening.set(port)
                let shownHost = host.contains(":") ? "[\(host)]" : host
                await onListening("http://\(shownHost):\(port)/" + (token.map { "?token=\($0)" } ?? ""))
            },
            logger: logger
        )
        // The overview's counts read every instance once (about 0.4 s at 10^6 instances) and
        // are kept until the file changes: count them now, on a thread of their own rather than
        // one of the few cooperative ones, so that the first page the user opens finds them.
        let database = reader.database
        Thread.detachNewThread { _ = try? database.modelSummaries() }
        try await application.runService()
    }

    /// The routes, for the server and for tests that call it in process.
    func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.middlewares.add(StudioAccess(token: token, hosts: hosts, port: listening))
        let reader = self.reader
        router.get("/") { request, _ in
            try Self.answer(request, reader: reader, path: "/") { layout in try OverviewPage(reader: reader, layout: layout).render() }
        }
        router.get("/models/:model") { request, context in
            let model = try context.parameters.require("model", as: Int.self)
            let query = try Self.checked { () throws(StudioInputError) in try Self.tableQuery(request) }
            return try Self.answer(request, reader: reader, path: "/models/\(model)", keeping: query.parameters) { layout in
                try ModelTablePage(reader: reader, layout: layout, model: model, query: query).render()
            }
        }
        router.get("/models/:model/instances/:instance") { request, context in
            let model = try context.parameters.require("model", as: Int.self)
            let instance = try context.parameters.require("instance", as: Int.self)
            return try Self.answer(request, reader: reader, path: "/models/\(model)/instances/\(instance)") { layout in
                try InstancePage(reader: reader, layout: layout, model: model, instance: instance).render()
            }
        }
        router.get("/models/:model/instances/:instance/properties/:property") { request, context in
            let model = try context.parameters.require("model", as: Int.self)
            let instance = try context.parameters.require("instance", as: Int.self)
            let property = try context.parameters.require("property", as: Int.self)
            let version = try Self.checked { () throws(StudioInputError) in try StudioMoment.cursor(Self.parameter(request, "version"), name: "version") }
            let moment = try Self.checked { () throws(StudioInputError) in try StudioMoment(parameter: Self.parameter(request, "at"), name: "at") }
            return try Self.wholeValue(reader: reader, path: Path(model: model, instance: instance, property: property), version: version, at: moment)
        }
        router.get("/changes") { request, _ in
            let from = try Self.checked { () throws(StudioInputError) in try StudioMoment(parameter: Self.parameter(request, "from"), name: "from") }
            let to = try Self.checked { () throws(StudioInputError) in try StudioMoment(parameter: Self.parameter(request, "to"), name: "to") }
            let after = try Self.checked { () throws(StudioInputError) in try StudioMoment.cursor(Self.parameter(request, "after")) }
            let kept = [("from", Self.parameter(request, "from")), ("to", Self.parameter(request, "to")), ("after", Self.parameter(request, "after"))]
            return try Self.answer(request, reader: reader, path: "/changes", keeping: kept) { layout in
                try ChangesPage(reader: reader, layout: layout, from: from, to: to, after: after).render()
            }
        }
        router.get("/records") { request, _ in
            let after = try Self.checked { () throws(StudioInputError) in try StudioMoment.cursor(Self.parameter(request, "after")) }
            return try Self.answer(request, reader: reader, path: "/records", keeping: [("after", Self.parameter(request, "after"))]) { layout in
                try RecordsPage(reader: reader, layout: layout, after: after).render()
            }
        }
        let assets = AssetDownload(store: reader.database.assets)
        router.get("/assets/:hash") { request, context in
            try await assets.response(hash: context.parameters.get("hash") ?? "", range: request.headers[.range], context: context)
        }
        router.get("/studio.js") { _, _ in
            Self.response(StudioLayout.script, type: "text/javascript; charset=utf-8")
        }
        router.get("/studio.css") { _, _ in
            Self.response(StudioLayout.style, type: "text/css; charset=utf-8")
        }
        return router
    }

    /// Builds a page with the layout of the request's moment; a bad parameter is a 400 and
    /// an instance without records a 404, each with the reason.
    private static func answer(
        _ request: Request, reader: StudioReader, path: String, keeping parameters: [(String, String?)] = [], render: (StudioLayout) throws -> HTMLText
    ) throws -> Response {
        do {
            let moment = try StudioMoment(parameter: Self.parameter(request, "at"), name: "at")
            let layout = StudioLayout(path: path, parameters: parameters, moment: moment, span: try? reader.database.recordedTimeSpan())
            return response(try render(layout).markup, type: "text/html; charset=utf-8")
        } catch let error as StudioInputError {
            throw HTTPError(.badRequest, message: error.message)
        } catch is InstancePage.NotFound {
            throw HTTPError(.notFound, message: "no such instance\(Self.parameter(request, "at") == nil ? "" : " at that moment")")
        }
    }

    /// The whole of a property's value (the pages cut long ones): the version stamped
    /// `version`, else the value at `moment` (now when `nil`); a string as UTF-8 text, bytes
    /// as they are, anything else as the pages describe it; streamed in chunks of 64 KiB.
    private static func wholeValue(reader: StudioReader, path: Path, version: Timestamp?, at moment: StudioMoment?) throws -> Response {
        let records = try reader.records(model: path.model, instance: path.instance, at: moment, cut: false).filter { $0.path.property == path.property }
        let found = version.map { version in records.last { $0.timestamp == version } } ?? records.last
        guard let record = found else { throw HTTPError(.notFound, message: "no such value\(version == nil ? "" : " at that version")") }
        let bytes: Data
        var type = "text/plain; charset=utf-8"
        if let data = record.value as? Data {
            bytes = data
            type = "application/octet-stream"
        } else {
            bytes = Data(ValueText.describe(record.value).utf8)
        }
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
        if let noSniff = HTTPField.Name("X-Content-Type-Options") { headers[noSniff] = "nosniff" }
        let body = ResponseBody(contentLength: bytes.count) { writer in
            let chunk = 64 * 1024
            var start = bytes.startIndex
            while start < bytes.endIndex {
                let end = bytes.index(start, offsetBy: chunk, limitedBy: bytes.endIndex) ?? bytes.endIndex
                try await writer.write(ByteBuffer(bytes: bytes[start ..< end]))
                start = end
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// A parameter read outside a page: a bad one is a 400 with the reason.
    private static func checked<Value>(_ read: () throws(StudioInputError) -> Value) throws(HTTPError) -> Value {
        do {
            return try read()
        } catch {
            throw HTTPError(.badRequest, message: error.message)
        }
    }

    /// A query parameter as a browser's form sends it: `+` is a space, `%2B` a plus.
    static func parameter(_ request: Request, _ name: String) -> String? {
        for pair in (request.uri.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.first.map({ $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }) == name else { continue }
            return parts.count == 2 ? parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding : ""
        }
        return nil
    }

    private static func response(_ text: String, type: String) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
        if type.hasPrefix("text/html"), let policy = HTTPField.Name("Content-Security-Policy") {
            headers[policy] = contentSecurityPolicy
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Pages run only Studio's own script and load only its own files: a second wall behind
    /// the escaping of every stored value, so that markup in a file never runs even if a
    /// page let some through, and no other site frames a page.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// The table page's parameters.
    private static func tableQuery(_ request: Request) throws(StudioInputError) -> ModelTablePage.TableQuery {
        var query = ModelTablePage.TableQuery()
        func integer(_ name: String) throws(StudioInputError) -> Int? {
            guard let text = Self.parameter(request, name), !text.isEmpty else { return nil }
            guard let value = Int(text) else { throw StudioInputError("\(name) must be an integer, not '\(text)'") }
            return value
        }
        if let status = Self.parameter(request, "status"), !status.isEmpty {
            guard let filter = ModelTablePage.TableQuery.StatusFilter(rawValue: status) else {
                throw StudioInputError("status must be active, deleted or all, not '\(status)'")
            }
            query.status = filter
        }
        query.after = try integer("after")
        query.offset = try integer("offset") ?? 0
        guard query.offset >= 0 else { throw StudioInputError("offset must not be negative") }
        query.sort = try integer("sort")
        query.descending = Self.parameter(request, "order") == "desc"
        query.filterProperty = try integer("filter")
        query.filterValue = Self.parameter(request, "value")
        return query
    }
}
