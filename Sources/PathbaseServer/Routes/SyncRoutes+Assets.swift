import Foundation
import Hummingbird
import HummingbirdAuth
import Pathbase

/// The asset endpoints of ``SyncRoutes``: content moves as raw bytes, in bounded chunks.
///
/// ```sh
/// curl -X POST -H "Authorization: Bearer $TOKEN" -d '{"assets":[{"assetSHA256":"…","assetSize":5}]}' \
///      http://127.0.0.1:8080/v1/assets/missing                      # which ones the server lacks
/// curl -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @part \
///      "http://127.0.0.1:8080/v1/assets/$HASH?size=5&offset=0"      # a chunk where the copy ends
/// curl -H "Authorization: Bearer $TOKEN" -r 0-1048575 http://127.0.0.1:8080/v1/assets/$HASH
/// ```
///
/// - `POST /v1/assets/missing`: a JSON ``AssetInventoryRequest`` → a JSON
///   ``AssetInventoryResponse`` (each missing asset with the bytes already stored).
/// - `PUT /v1/assets/HASH?size=SIZE&offset=OFFSET`: the body is the content from byte
///   OFFSET, at most ``SyncServer/maximumAssetChunkSize`` bytes → a JSON ``AssetUploadState``.
///   409 when OFFSET is not where the stored part ends; 422 when the complete content does
///   not match HASH (nothing is kept).
/// - `GET /v1/assets/HASH` with `Range: bytes=START-END` (or `bytes=START-`) → 206 with at
///   most ``SyncServer/maximumAssetChunkSize`` bytes and `Content-Range`; without `Range`,
///   the content from byte 0 (200 when that is all of it); 404 for an asset the account does
///   not hold whole, 416 for a range past its end.
extension SyncRoutes {

    /// Adds the asset endpoints to a router.
    func registerAssets<Context: RequestContext>(on router: Router<Context>) {
        post(SyncEndpoint.missingAssets, on: router, server.missingAssets(_:token:))
        router.put(RouterPath(SyncEndpoint.asset(":hash"))) { request, context in
            await upload(request, hash: context.parameters.get("hash") ?? "")
        }
        router.get(RouterPath(SyncEndpoint.asset(":hash"))) { request, context in
            await download(request, hash: context.parameters.get("hash") ?? "")
        }
    }

    private func upload(_ request: Request, hash: String) async -> Response {
        do {
            return try await admitted(request) { token in
                let query = request.uri.queryParameters
                guard let size = query["size"].flatMap({ Int64(String($0)) }), let offset = query["offset"].flatMap({ Int64(String($0)) }) else {
                    throw SyncServerError.invalidAssetRequest("the address needs ?size=BYTES&offset=BYTE, whole numbers")
                }
                let asset: Asset
                do {
                    asset = try Asset(hash: hash, size: size)
                } catch {
                    throw SyncServerError.invalidAssetRequest(error.localizedDescription)
                }
                var request = request
                let maximum = SyncServer.maximumAssetChunkSize
                let bytes = try await body(of: &request, upTo: maximum, tooLarge: "An asset chunk larger than \(maximum) bytes; send at most \(maximum) at once")
                let state = try await server.uploadAssetChunk(Data(bytes.readableBytesView), of: asset, at: offset, token: token)
                return try ErrorReason.json(state, status: .ok)
            }
        } catch {
            return ErrorReason(error).response
        }
    }

    private func download(_ request: Request, hash: String) async -> Response {
        do {
            return try await admitted(request) { token in
                let (offset, count) = try Self.range(request.headers[.range])
                let chunk = try await server.downloadAssetChunk(hash, from: offset, maxCount: count, token: token)
                // offset < assetSize and bytes.count <= assetSize - offset, checked by the server.
                let end = chunk.offset + Int64(chunk.bytes.count) - 1
                let whole = chunk.offset == 0 && Int64(chunk.bytes.count) == chunk.assetSize
                var headers: HTTPFields = [.contentType: "application/octet-stream"]
                if !chunk.bytes.isEmpty {
                    headers[.contentRange] = "bytes \(chunk.offset)-\(end)/\(chunk.assetSize)"
                }
                let status: HTTPResponse.Status = request.headers[.range] == nil && whole ? .ok : .partialContent
                return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: chunk.bytes)))
            }
        } catch {
            return ErrorReason(error).response
        }
    }

    /// The first byte and the byte count of a `Range: bytes=START-END` or `bytes=START-`
    /// header; no header: from byte 0, a whole chunk.
    package static func range(_ header: String?) throws -> (offset: Int64, count: Int) {
        let maximum = SyncServer.maximumAssetChunkSize
        guard let header else { return (0, maximum) }
        let refusal = SyncServerError.invalidAssetRequest("the Range header '\(header.prefix(100))' is not bytes=START-END or bytes=START- (one range)")
        // A suffix (bytes=-N) would need the asset's size, which the store checks later.
        guard case .from(let start, let through)? = ByteRange(header: header) else { throw refusal }
        guard let end = through else { return (start, maximum) }
        // Both bounds lie in 0 ... Int64.max, so `end - start` cannot overflow; its `+ 1`
        // can (bytes=0-9223372036854775807), so the span is compared before adding.
        let span = end - start
        return (start, span >= Int64(maximum) ? maximum : Int(span) + 1)
    }
}
