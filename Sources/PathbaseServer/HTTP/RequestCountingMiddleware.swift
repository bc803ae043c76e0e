import Hummingbird

/// Counts every answered request in a ``SyncServerActivity`` by route and status class, for
/// the metrics endpoint.
///
/// ```swift
/// router.middlewares.add(RequestCountingMiddleware(activity: server.activity))
/// ```
///
/// Requests to paths the server does not serve count under `"other"`, so random paths
/// cannot grow the counts without bound.
struct RequestCountingMiddleware<Context: RequestContext>: RouterMiddleware {

    /// Where the counts go.
    let activity: SyncServerActivity

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let label = SyncRoutes.endpoint(method: request.method.rawValue, path: request.uri.path) ?? "other"
        do {
            let response = try await next(request, context)
            activity.countRequest(route: label, status: response.status.code)
            return response
        } catch {
            activity.countRequest(route: label, status: (error as? any HTTPResponseError)?.status.code ?? 500)
            throw error
        }
    }
}
