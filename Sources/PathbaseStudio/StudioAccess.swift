import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Who a Studio answers. First the `Host` the request is addressed to (``StudioHosts``):
/// another site's name is a 421 with the reason, on every address. Then, on a non-loopback
/// address, the token: in `?token=` once (the answer then sets a cookie with it) or in the
/// `pathbase_studio` cookie. Without it: 401. A user's data is never served to a network
/// unauthenticated, nor to a page of another site.
struct StudioAccess<Context: RequestContext>: RouterMiddleware {

    static var cookieName: String { "pathbase_studio" }

    /// The token; `nil` on loopback, where the `Host` check is all.
    let token: String?

    /// The `Host` values answered.
    let hosts: StudioHosts

    /// The port listened on, once known.
    let port: ListeningPort

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let refusal = port.value.map { hosts.refusal(of: request.head.authority, port: $0) } ?? "Studio is not listening yet"
        if let refusal {
            var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"]
            if let noSniff = HTTPField.Name("X-Content-Type-Options") { headers[noSniff] = "nosniff" }
            return Response(
                status: .misdirectedRequest, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: "This Pathbase Studio does not answer this request: \(refusal).\n")))
        }
        guard let token else { return try await next(request, context) }
        if let cookie = request.cookies[Self.cookieName]?.value, Self.same(cookie, token) {
            return try await next(request, context)
        }
        if let given = request.uri.queryParameters.get("token"), Self.same(given, token) {
            var response = try await next(request, context)
            response.setCookie(Cookie(name: Self.cookieName, value: token, path: "/", secure: false, httpOnly: true, sameSite: .strict))
            return response
        }
        return Response(
            status: .unauthorized,
            headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "This Pathbase Studio needs the token it printed at start: open the address it printed, with ?token=.\n"))
        )
    }

    /// Compares without returning early, so that timing does not tell how much matched.
    static func same(_ given: String, _ token: String) -> Bool {
        Data(SHA256.hash(data: Data(given.utf8))) == Data(SHA256.hash(data: Data(token.utf8)))
    }

    /// A new random token (32 bytes, base64url).
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0 ..< 32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
