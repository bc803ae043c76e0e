import Hummingbird

/// Counts every answered request in a ``SyncServerActivity`` by route and status class, for
/// the metrics endpoint.
///
/// ```swift
/// router.middlewares.add(RequestCountingMiddleware(activity: server.activity))
/// ```
///
/// The route is the one the router matched (`"POST /v1/commands/send"`,
/// `"GET /v1/assets/:hash"`), so every route counts; requests to paths the server does not
/// serve count under `"other"`, so random paths cannot grow the counts without bound.
struct RequestCountingMiddleware<Context: RequestContext>: RouterMiddleware {

    /// Where the counts go.
    let activity: SyncServerActivity

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            activity.countRequest(route: Self.label(request, context), status: response.status.code)
            return response
        } catch {
            activity.countRequest(route: Self.label(request, context), status: (error as? any HTTPResponseError)?.status.code ?? 500)
            throw error
        }
    }

    /// `"METHOD /path"` of the route the router matched, or `"other"`.
    static func label(_ request: Request, _ context: Context) -> String {
        guard let path = context.endpointPath, path != "NotFound" else { return "other" }
        // Parameters as `:name`, as the metrics have always named them (`/v1/assets/:hash`).
        let parts = path.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? ":" + part.dropFirst().dropLast() : String(part)
        }
        return "\(request.method.rawValue) /" + parts.joined(separator: "/")
    }
}
