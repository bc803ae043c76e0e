import Foundation
import Pathbase

/// A `SyncTransport` that calls a ``SyncServer`` in the same process: for tests,
/// simulations, and apps that sync two databases they both hold.
///
/// ```swift
/// let server = SyncServer(store: InMemorySyncServerStore())
/// let token = try await server.addAccount(named: "alice")
/// let replica = try Replica(database: InMemoryHistoryDatabase(), transport: InProcessTransport(server: server, token: token))
/// try await replica.sync()
/// ```
///
/// Asset calls throw the server's refusals as HTTP would: `SyncTransportError/refused(status:reason:)`
/// with the status the routes answer, and `AssetError/notOnServer(_:)` for a download of an
/// asset the account does not hold.
public struct InProcessTransport: CommandRelayTransport, AssetTransport {

    /// The server called.
    public let server: SyncServer

    /// The account's bearer token.
    public let token: String

    /// A transport to a server for one account.
    public init(server: SyncServer, token: String) {
        self.server = server
        self.token = token
    }

    public func push(_ request: PushRequest) async throws -> PushResponse {
        try await server.push(request, token: token)
    }

    public func pull(_ request: PullRequest) async throws -> PullResponse {
        try await server.pull(request, token: token)
    }

    public func relay(_ request: CommandRelayRequest) async throws -> CommandTicket {
        try await server.relay(request, token: token)
    }

    public func inbox(_ request: CommandInboxRequest) async throws -> CommandInboxResponse {
        try await server.inbox(request, token: token)
    }

    public func answer(_ answer: CommandAnswer) async throws -> CommandTicket {
        try await server.answer(answer, token: token)
    }

    public func result(of ticket: CommandTicket) async throws -> CommandResultResponse {
        try await server.result(of: ticket, token: token)
    }

    public func missingAssets(_ request: AssetInventoryRequest) async throws -> AssetInventoryResponse {
        try await refusingAsHTTP { try await server.missingAssets(request, token: token) }
    }

    public func uploadAssetChunk(_ chunk: Data, of asset: Asset, at offset: Int64) async throws -> AssetUploadState {
        try await refusingAsHTTP { try await server.uploadAssetChunk(chunk, of: asset, at: offset, token: token) }
    }

    public func assetChunk(of asset: Asset, from offset: Int64, maxCount: Int) async throws -> Data {
        guard offset < asset.size, maxCount > 0 else { return Data() }
        do {
            return try await refusingAsHTTP { try await server.downloadAssetChunk(asset.hash, from: offset, maxCount: maxCount, token: token).bytes }
        } catch SyncTransportError.refused(status: 404, _) {
            throw AssetError.notOnServer(asset)
        }
    }

    private func refusingAsHTTP<Answer>(_ call: () async throws -> Answer) async throws -> Answer {
        do {
            return try await call()
        } catch let error as SyncServerError {
            throw SyncTransportError.refused(status: error.httpStatus.code, reason: error.localizedDescription)
        }
    }
}
