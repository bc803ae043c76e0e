import Foundation
import PathbaseTestSupport
import Testing

/// Fetches pages of a real `pathbase studio` process with curl, for the Studio suites.
enum StudioPages {

    /// `pathbase studio ARGUMENTS --port 0`, once it listens.
    static func start(_ arguments: [String]) async throws -> ServeProcess {
        try await ServeProcess(arguments: ["studio"] + arguments + ["--port", "0"])
    }

    /// A page's HTML; a status other than 2xx is a failed expectation.
    static func page(_ studio: ServeProcess, _ path: String) async throws -> String {
        let answer = try await Curl.run(["--fail-with-body", address(studio, path)])
        #expect(answer.exitStatus == 0, "\(path): \(answer)")
        return answer.output
    }

    /// The full address of `path` on `studio`.
    static func address(_ studio: ServeProcess, _ path: String) -> String {
        let base = studio.url.absoluteString
        return (base.hasSuffix("/") ? String(base.dropLast()) : base) + path
    }

    /// The part of a page between `<table id="ID"` and its end.
    static func table(_ id: String, in page: String) -> String {
        guard let start = page.range(of: "<table id=\"\(id)\"") else { return "" }
        let rest = page[start.lowerBound...]
        return String(rest[..<(rest.range(of: "</table>")?.upperBound ?? rest.endIndex)])
    }

    /// The `href` of the element with `id` (or the first of `class`), entities decoded.
    static func link(id: String? = nil, class name: String? = nil, in page: String) -> String? {
        let marker = id.map { "id=\"\($0)\" href=\"" } ?? "class=\"\(name ?? "")\" href=\""
        guard let start = page.range(of: marker)?.upperBound, let end = page[start...].firstIndex(of: "\"") else { return nil }
        return String(page[start ..< end]).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// A download as bytes, with its HTTP status and headers (names lowercased).
    struct Download {
        let status: Int
        let headers: [String: String]
        let body: Data
    }

    /// GET `path` with curl's extra `arguments` (`-r 0-9`, `-H …`), the body kept as bytes.
    static func download(_ studio: ServeProcess, _ path: String, _ arguments: [String] = [], into directory: TemporaryDirectory) async throws -> Download {
        let name = UUID().uuidString
        let bodyFile = directory.file("\(name).body")
        let headerFile = directory.file("\(name).headers")
        let answer = try await Curl.run(arguments + ["-o", bodyFile, "-D", headerFile, "-w", "%{http_code}", address(studio, path)])
        #expect(answer.exitStatus == 0, "\(path): \(answer)")
        var headers: [String: String] = [:]
        for line in (try String(contentsOfFile: headerFile, encoding: .utf8)).split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data()
        return Download(status: Int(answer.output) ?? 0, headers: headers, body: body)
    }
}
