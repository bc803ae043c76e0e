import Foundation
import HTTPTypes
import Hummingbird
import Pathbase

/// `/assets/HASH`: an asset's content from the file's asset folder (`FILE.assets/`),
/// streamed from disk, with `Range` requests, which browsers' audio and video players seek
/// with:
///
/// - no `Range` header: 200 and the whole content;
/// - one range within the content (`bytes=START-END`, `bytes=START-`, `bytes=-COUNT`): 206
///   with `Content-Range: bytes FIRST-LAST/SIZE` and those bytes;
/// - a range starting at or past the end: 416 with `Content-Range: bytes */SIZE`;
/// - a header that is not one byte range is ignored, as RFC 9110 allows: 200.
///
/// The type is guessed from the content's first bytes (``AssetContentType``); the answer
/// says `nosniff`, so a browser never runs a stored file as a page. The content is not
/// hashed on the way (a range cannot be checked against the whole content's hash): a damaged
/// file is served as it is, as ``Pathbase/Asset/fileURL()`` gives it.
struct AssetDownload {

    /// The file's asset folder.
    let store: AssetStore

    func response(hash: String, range header: String?, context: some RequestContext) async throws -> Response {
        // A valid hash is 64 hexadecimal digits: nothing else can name a file, so no path
        // outside the folder is ever read.
        guard let asset = try? Asset(hash: hash, size: 0) else { throw HTTPError(.notFound, message: "'\(hash.prefix(80))' is not an asset's hash") }
        let url = store.fileURL(for: asset)
        guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value else {
            throw HTTPError(.notFound, message: "the asset folder has no asset \(hash)")
        }
        var headers: HTTPFields = [
            .contentType: AssetContentType.of(fileAt: url), .acceptRanges: "bytes",
            // Content-addressed: the content at this address never changes.
            .cacheControl: "private, max-age=86400, immutable"
        ]
        if let noSniff = HTTPField.Name("X-Content-Type-Options") { headers[noSniff] = "nosniff" }
        guard let range = header.flatMap(ByteRange.init(header:)) else {
            let whole = size == 0 ? ResponseBody() : try await body(url, 0 ... size - 1, context: context)
            return Response(status: .ok, headers: headers, body: whole)
        }
        guard let bytes = range.bytes(in: size) else {
            headers[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: headers, body: ResponseBody())
        }
        headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)"
        return Response(status: .partialContent, headers: headers, body: try await body(url, bytes, context: context))
    }

    /// The bytes of `range`, read in chunks as the connection takes them.
    private func body(_ url: URL, _ range: ClosedRange<Int64>, context: some RequestContext) async throws -> ResponseBody {
        try await FileIO().loadFile(path: url.path, range: Int(range.lowerBound) ... Int(range.upperBound), context: context)
    }
}
