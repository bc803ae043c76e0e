import Hummingbird
import Logging

/// Logs each request's method, path and status at `info`, without its query string or
/// headers: a token sent as `?token=` or in `Authorization` is never written to the log.
///
/// ```swift
/// router.middlewares.add(RedactingLogMiddleware())
/// ```
struct RedactingLogMiddleware<Context: RequestContext>: RouterMiddleware {

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let method = request.method.rawValue
        // The path alone, capped: the query string may hold secrets and is left out.
        let path = String(request.uri.path.prefix(200))
        do {
            let response = try await next(request, context)
            context.logger.info("request", metadata: ["method": "\(method)", "path": "\(path)", "status": "\(response.status.code)"])
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            context.logger.info("request", metadata: ["method": "\(method)", "path": "\(path)", "status": "\(status)"])
            throw error
        }
    }
}
