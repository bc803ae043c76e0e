import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import PathbaseTestSupport
import Testing

@Model(id: 2091)
final class ServerRecording {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var audio: Asset?
}

/// Assets through the server, on every store: replicas on SQLite files upload and download
/// content by hash, only what the other side lacks, resuming, checked against the hash.
extension SharedServerSuiteTests {

    /// Content of more than two chunks (the replica moves 1 MiB at a time), the same for a
    /// seed.
    private func content(seed: UInt64, size: Int = 2 * Replica.assetChunkSize + 123_457) -> Data {
        var random = SplitMix64(seed: seed)
        var data = Data(capacity: size)
        while data.count < size {
            withUnsafeBytes(of: random.next()) { data.append(contentsOf: $0.prefix(size - data.count)) }
        }
        return data
    }

    /// A replica on a new SQLite file, syncing over HTTP with `token`.
    private func replica(_ url: URL, _ token: String) throws -> (database: SQLiteDatabase, replica: Replica) {
        let database = try SQLiteDatabase(path: ServerTestFiles.newPath())
        return (database, try Replica(database: database, transport: HTTPSyncTransport(server: url, token: token)))
    }

    private func uploads(_ server: SyncServer) -> Int {
        server.activity.requestCounts["PUT /v1/assets/:hash"]?.values.reduce(0, +) ?? 0
    }

    @Test("a record holding an asset syncs through the server: the content goes up in chunks before the record and comes down after it, the same bytes", arguments: StoreKind.allCases)
    func assetThroughServer(kind: StoreKind) async throws {
        let server = SyncServer(store: try await kind.make())
        let token = try await server.addAccount(named: "studio")
        try await withHTTPServer(server) { url in
            let (phoneFile, phone) = try replica(url, token)
            let bytes = content(seed: 1)
            let take = ServerRecording.create(in: phoneFile, id: 1, title: "take 1")
            take.audio = try await phoneFile.storeAsset(bytes)
            let asset = try #require(take.audio)

            let pushed = try await phone.sync()
            #expect(pushed.uploadedAssets == 1 && pushed.uploadedAssetBytes == asset.size && pushed.assetFailures.isEmpty, "\(pushed)")
            #expect(uploads(server) == 3) // 2 MiB and a bit: three chunks

            let (laptopFile, laptop) = try replica(url, token)
            let pulled = try await laptop.sync()
            #expect(pulled.downloadedAssets == 1 && pulled.downloadedAssetBytes == asset.size && pulled.assetFailures.isEmpty, "\(pulled)")
            let copy = try #require((laptopFile.get(id: 1) as ServerRecording?)?.audio)
            #expect(copy == asset)
            // Read from the laptop's own folder, not the phone's (same process).
            #expect(try laptopFile.assetStore().data(of: copy) == bytes)
            #expect(laptop.awaitedAssets().isEmpty)
            #expect(try await laptop.sync().downloadedAssets == 0) // nothing twice
        }
    }

    @Test("an asset the server holds is not uploaded again, from the same replica or another one with the same content", arguments: StoreKind.allCases)
    func assetNotUploadedTwice(kind: StoreKind) async throws {
        let server = SyncServer(store: try await kind.make())
        let token = try await server.addAccount(named: "studio")
        try await withHTTPServer(server) { url in
            let (phoneFile, phone) = try replica(url, token)
            let bytes = content(seed: 2)
            ServerRecording.create(in: phoneFile, id: 1, title: "a", audio: try await phoneFile.storeAsset(bytes))
            try await phone.sync()
            let afterFirst = uploads(server)
            #expect(afterFirst == 3)

            // A new record of the same replica referencing the same asset.
            ServerRecording.create(in: phoneFile, id: 2, title: "b", audio: try await phoneFile.storeAsset(bytes))
            let again = try await phone.sync()
            #expect(again.pushed == 3 && again.uploadedAssets == 0 && again.uploadedAssetBytes == 0, "\(again)")

            // Another replica that stored equal content itself.
            let (tabletFile, tablet) = try replica(url, token)
            ServerRecording.create(in: tabletFile, id: 3, title: "c", audio: try await tabletFile.storeAsset(bytes))
            let fromTablet = try await tablet.sync()
            #expect(fromTablet.uploadedAssets == 0 && fromTablet.uploadedAssetBytes == 0 && fromTablet.downloadedAssets == 0, "\(fromTablet)")
            #expect(uploads(server) == afterFirst)
        }
    }

    @Test("an interrupted upload resumes from the bytes the server holds, an interrupted download from the bytes received", arguments: StoreKind.allCases)
    func uploadResumes(kind: StoreKind) async throws {
        let server = SyncServer(store: try await kind.make())
        let token = try await server.addAccount(named: "studio")
        try await withHTTPServer(server) { url in
            let (phoneFile, phone) = try replica(url, token)
            let bytes = content(seed: 3)
            let asset = try await phoneFile.storeAsset(bytes)
            ServerRecording.create(in: phoneFile, id: 1, title: "long", audio: asset)

            // The first chunk arrived before the connection was lost.
            let transport = HTTPSyncTransport(server: url, token: token)
            let first = try await transport.uploadAssetChunk(bytes.prefix(Replica.assetChunkSize), of: asset, at: 0)
            #expect(first == AssetUploadState(asset: asset, received: Int64(Replica.assetChunkSize), isComplete: false))
            #expect(try await transport.missingAssets(AssetInventoryRequest(assets: [asset])).missing == [first])

            let report = try await phone.sync()
            #expect(report.uploadedAssets == 1, "\(report)")
            #expect(report.uploadedAssetBytes == asset.size - Int64(Replica.assetChunkSize), "only the rest is sent")
            #expect(try await transport.missingAssets(AssetInventoryRequest(assets: [asset])).missing.isEmpty)

            // A download interrupted after its first chunk resumes too.
            let (laptopFile, laptop) = try replica(url, token)
            #expect(try !laptopFile.assetStore().receive(bytes.prefix(Replica.assetChunkSize), of: asset, at: 0))
            let pulled = try await laptop.sync()
            #expect(pulled.downloadedAssetBytes == asset.size - Int64(Replica.assetChunkSize), "\(pulled)")
            #expect(try laptopFile.assetStore().data(of: asset) == bytes)
        }
    }

    @Test("content whose last chunk arrived but whose check was cut off is checked when the replica comes back", arguments: StoreKind.allCases)
    func cutOffCheckFinishes(kind: StoreKind) async throws {
        let store = try await kind.make()
        let server = SyncServer(store: store)
        let token = try await server.addAccount(named: "studio")
        let phoneFile = InMemoryHistoryDatabase()
        let bytes = content(seed: 9, size: 3000)
        let asset = try await phoneFile.storeAsset(bytes)
        // Every byte stored, not yet checked: as when the request of the last chunk was cut off.
        _ = try await StoreKind.assetContent(store).appendAssetChunk(bytes, to: asset, at: 0, in: AccountID(rawValue: 1))
        let transport = InProcessTransport(server: server, token: token)
        #expect(try await transport.missingAssets(AssetInventoryRequest(assets: [asset])).missing == [AssetUploadState(asset: asset, received: asset.size, isComplete: false)])

        let phone = try Replica(database: phoneFile, transport: transport)
        ServerRecording.create(in: phoneFile, id: 1, title: "cut off", audio: asset)
        let report = try await phone.sync()
        #expect(report.uploadedAssets == 1 && report.uploadedAssetBytes == 0 && report.assetFailures.isEmpty, "\(report)")
        #expect(try await transport.assetChunk(of: asset, from: 0, maxCount: 5000) == bytes)
    }

    @Test("content that does not match its hash is refused with 422 and a reason when complete, and nothing of it is kept", arguments: StoreKind.allCases)
    func corruptedUploadRefused(kind: StoreKind) async throws {
        let store = try await kind.make()
        let server = SyncServer(store: store)
        let token = try await server.addAccount(named: "studio")
        try await withHTTPServer(server) { url in
            let bytes = content(seed: 4)
            let asset = try InMemoryDatabase().assetStore().store(bytes)
            var forged = bytes
            forged[forged.count - 1] ^= 0xFF // same size, one byte off
            let transport = HTTPSyncTransport(server: url, token: token)
            var offset = 0
            while offset + Replica.assetChunkSize < forged.count {
                _ = try await transport.uploadAssetChunk(forged[offset ..< offset + Replica.assetChunkSize], of: asset, at: Int64(offset))
                offset += Replica.assetChunkSize
            }
            let refusal = await #expect(throws: SyncTransportError.self) {
                try await transport.uploadAssetChunk(forged[offset...], of: asset, at: Int64(offset))
            }
            guard case .refused(let status, let reason) = refusal else {
                Issue.record("not refused: \(String(describing: refusal))")
                return
            }
            #expect(status == 422)
            #expect(reason.contains("nothing was stored"), "\(reason)")
            // Nothing kept: the next upload starts at byte 0, and the asset cannot be downloaded.
            #expect(try await transport.missingAssets(AssetInventoryRequest(assets: [asset])).missing == [AssetUploadState(asset: asset, received: 0, isComplete: false)])
            let stored = try await StoreKind.assetContent(store).storedAssets([asset.hash], in: AccountID(rawValue: 1))
            #expect(stored.isEmpty)
            await #expect(throws: AssetError.notOnServer(asset)) { try await transport.assetChunk(of: asset, from: 0, maxCount: 10) }
        }
    }

    @Test("bad asset requests get a 4xx with a JSON reason and store nothing", arguments: StoreKind.allCases)
    func badAssetRequests(kind: StoreKind) async throws {
        let store = try await kind.make()
        let server = SyncServer(store: store)
        let token = try await server.addAccount(named: "studio")
        try await withHTTPServer(server) { url in
            let bytes = Data("twelve bytes".utf8)
            let asset = try InMemoryDatabase().assetStore().store(bytes)
            let path = "v1/assets/\(asset.hash)"
            let cases: [(method: String, endpoint: String, token: String?, body: Data?, range: String?, status: Int)] = [
                ("PUT", path + "?size=12&offset=0", nil, bytes, nil, 401),
                ("PUT", path + "?size=12&offset=0", "wrong", bytes, nil, 401),
                ("PUT", "v1/assets/" + String(repeating: "g", count: 64) + "?size=12&offset=0", token, bytes, nil, 400),
                ("PUT", path + "?size=12", token, bytes, nil, 400),
                ("PUT", path + "?size=-1&offset=0", token, bytes, nil, 400),
                ("PUT", path + "?size=12&offset=4", token, Data(bytes.suffix(8)), nil, 409),
                ("PUT", path + "?size=12&offset=0", token, bytes + bytes, nil, 400),
                ("PUT", path + "?size=12&offset=0", token, Data(), nil, 400),
                ("PUT", path + "?size=12&offset=0", token, Data(count: SyncServer.maximumAssetChunkSize + 1), nil, 413),
                ("POST", "v1/assets/missing", token, Data("{\"assets\":[{\"assetSHA256\":\"../x\",\"assetSize\":1}]}".utf8), nil, 400),
                ("POST", "v1/assets/missing", token, Data("not json".utf8), nil, 400),
                ("GET", path, token, nil, nil, 404),
                ("GET", path, token, nil, "bytes=a-b", 400),
                ("GET", "v1/assets/" + String(repeating: "A", count: 64), token, nil, nil, 400)
            ]
            for bad in cases {
                let exchange = try await RawExchange.send(bad.method, to: url, bad.endpoint, token: bad.token, body: bad.body, range: bad.range)
                #expect(exchange.status == bad.status, "\(bad.method) \(bad.endpoint): \(exchange.status)")
                #expect(exchange.reason?.isEmpty == false, "\(bad.method) \(bad.endpoint): no reason")
            }
            #expect(try await StoreKind.assetContent(store).storedAssets([asset.hash], in: AccountID(rawValue: 1)).isEmpty)

            // Stored, then read with ranges; a range past the end is 416.
            let transport = HTTPSyncTransport(server: url, token: token)
            #expect(try await transport.uploadAssetChunk(bytes, of: asset, at: 0).isComplete)
            let ranged = try await RawExchange.send("GET", to: url, path, token: token, body: nil, range: "bytes=7-")
            #expect(ranged.status == 206 && ranged.body == bytes.suffix(5))
            let whole = try await RawExchange.send("GET", to: url, path, token: token, body: nil)
            #expect(whole.status == 200 && whole.body == bytes)
            let past = try await RawExchange.send("GET", to: url, path, token: token, body: nil, range: "bytes=12-20")
            #expect(past.status == 416 && past.reason != nil)
            #expect(try await transport.assetChunk(of: asset, from: 3, maxCount: 4) == bytes[3 ..< 7])
        }
    }

    @Test("GET /v1/assets/HASH answers at most 4 MiB (206 with Content-Range, the rest by Range); an asset whose upload stopped part way is 404", arguments: StoreKind.allCases)
    func downloadCapAndPartialUpload(kind: StoreKind) async throws {
        let store = try await kind.make()
        let server = SyncServer(store: store)
        let token = try await server.addAccount(named: "studio")
        let maximum = SyncServer.maximumAssetChunkSize
        #expect(maximum == 4 << 20)
        try await withHTTPServer(server) { url in
            let bytes = content(seed: 9, size: maximum + 1000)
            let asset = try InMemoryDatabase().assetStore().store(bytes)
            let path = "v1/assets/\(asset.hash)"
            let transport = HTTPSyncTransport(server: url, token: token)

            // Part way: the first 4 MiB only. The server holds them, but not the asset.
            let partial = try await transport.uploadAssetChunk(bytes.prefix(maximum), of: asset, at: 0)
            #expect(partial.received == Int64(maximum) && !partial.isComplete)
            for range in [nil, "bytes=0-99"] as [String?] {
                let early = try await RawExchange.send("GET", to: url, path, token: token, body: nil, range: range)
                #expect(early.status == 404, "\(String(describing: range))")
                #expect(early.reason?.isEmpty == false)
                #expect(early.body.count < 1000, "the partial content was sent")
            }

            #expect(try await transport.uploadAssetChunk(bytes.suffix(from: maximum), of: asset, at: Int64(maximum)).isComplete)
            // No Range: the first 4 MiB, marked partial.
            let first = try await RawExchange.send("GET", to: url, path, token: token, body: nil)
            #expect(first.status == 206)
            #expect(first.body == bytes.prefix(maximum))
            // A range larger than the cap is cut to it.
            let wide = try await RawExchange.send("GET", to: url, path, token: token, body: nil, range: "bytes=0-\(bytes.count - 1)")
            #expect(wide.status == 206 && wide.body.count == maximum)
            // The rest, by Range.
            let rest = try await RawExchange.send("GET", to: url, path, token: token, body: nil, range: "bytes=\(maximum)-")
            #expect(rest.status == 206 && rest.body == bytes.suffix(from: maximum))
        }
    }

    @Test("another account can neither download an asset nor learn that the server holds it", arguments: StoreKind.allCases)
    func assetsPerAccount(kind: StoreKind) async throws {
        let server = SyncServer(store: try await kind.make())
        let alice = try await server.addAccount(named: "alice")
        let bob = try await server.addAccount(named: "bob")
        try await withHTTPServer(server) { url in
            let (aliceFile, aliceReplica) = try replica(url, alice)
            let asset = try await aliceFile.storeAsset(content(seed: 5, size: 1000))
            ServerRecording.create(in: aliceFile, id: 1, title: "private", audio: asset)
            #expect(try await aliceReplica.sync().uploadedAssets == 1)

            let bobTransport = HTTPSyncTransport(server: url, token: bob)
            await #expect(throws: AssetError.notOnServer(asset)) { try await bobTransport.assetChunk(of: asset, from: 0, maxCount: 1000) }
            let raw = try await RawExchange.send("GET", to: url, "v1/assets/\(asset.hash)", token: bob, body: nil)
            #expect(raw.status == 404 && raw.reason != nil)
            #expect(try await bobTransport.missingAssets(AssetInventoryRequest(assets: [asset])).missing.count == 1)
        }
    }

    @Test("an asset the server lacks is a typed failure in the report, the records are applied, and it arrives with a later sync", arguments: StoreKind.allCases)
    func assetMissingOnServer(kind: StoreKind) async throws {
        let server = SyncServer(store: try await kind.make())
        let token = try await server.addAccount(named: "studio")
        try await withHTTPServer(server) { url in
            // The phone's record names content it does not have (its file was lost).
            let bytes = content(seed: 6, size: 5000)
            let asset = try InMemoryDatabase().assetStore().store(bytes)
            let (phoneFile, phone) = try replica(url, token)
            ServerRecording.create(in: phoneFile, id: 1, title: "lost file", audio: try Asset(hash: asset.hash, size: asset.size))
            let pushed = try await phone.sync()
            // The status, the title, the audio, and the file's first description of the model.
            #expect(pushed.acknowledged == 4 && pushed.assetFailures == [.missing(asset)], "\(pushed)")

            let (laptopFile, laptop) = try replica(url, token)
            let pulled = try await laptop.sync()
            #expect(pulled.pulled == 4 && pulled.assetFailures == [.notOnServer(asset)], "\(pulled)")
            #expect((laptopFile.get(id: 1) as ServerRecording?)?.title == "lost file")
            #expect(laptop.awaitedAssets() == [asset])

            // Another replica with the content uploads it; the laptop's next sync fetches it.
            let (tabletFile, tablet) = try replica(url, token)
            ServerRecording.create(in: tabletFile, id: 2, title: "found", audio: try await tabletFile.storeAsset(bytes))
            #expect(try await tablet.sync().uploadedAssets == 1)
            let later = try await laptop.sync()
            #expect(later.downloadedAssets == 1 && later.assetFailures.isEmpty, "\(later)")
            #expect(laptop.awaitedAssets().isEmpty)
            #expect(try laptopFile.assetStore().data(of: asset) == bytes)
        }
    }

    @Test("an upload interrupted on one server resumes through another server on the same database, and the content is downloaded from the first", arguments: StoreKind.persistent)
    func uploadResumesOnAnotherServer(kind: StoreKind) async throws {
        let stores = try await kind.makeShared(count: 2)
        let east = SyncServer(store: stores[0])
        let west = SyncServer(store: stores[1])
        let token = try await east.addAccount(named: "studio")
        let bytes = content(seed: 8)
        let phoneFile = InMemoryHistoryDatabase()
        let asset = try await phoneFile.storeAsset(bytes)
        _ = try await InProcessTransport(server: east, token: token).uploadAssetChunk(bytes.prefix(Replica.assetChunkSize), of: asset, at: 0)

        let phone = try Replica(database: phoneFile, transport: InProcessTransport(server: west, token: token))
        ServerRecording.create(in: phoneFile, id: 1, title: "two servers", audio: asset)
        let report = try await phone.sync()
        #expect(report.uploadedAssetBytes == asset.size - Int64(Replica.assetChunkSize), "\(report)")

        let laptopFile = InMemoryHistoryDatabase()
        let laptop = try Replica(database: laptopFile, transport: InProcessTransport(server: east, token: token))
        #expect(try await laptop.sync().downloadedAssets == 1)
        #expect(try laptopFile.assetStore().data(of: asset) == bytes)
    }

    @Test("AutomaticSync moves assets through the same path", arguments: [StoreKind.sqlite])
    func automaticSyncMovesAssets(kind: StoreKind) async throws {
        let server = SyncServer(store: try await kind.make())
        let token = try await server.addAccount(named: "studio")
        try await withHTTPServer(server) { url in
            let (phoneFile, phone) = try replica(url, token)
            let bytes = content(seed: 7)
            let asset = try await phoneFile.storeAsset(bytes)
            ServerRecording.create(in: phoneFile, id: 1, title: "auto", audio: asset)
            let (laptopFile, laptop) = try replica(url, token)
            let phoneSync = AutomaticSync(replica: phone, interval: .milliseconds(50), debounce: .zero)
            defer { phoneSync.stop() }
            let laptopSync = AutomaticSync(replica: laptop, interval: .milliseconds(50), debounce: .zero)
            defer { laptopSync.stop() }
            let store = try laptopFile.assetStore()
            // Generous: beside the whole parallel suite on two cores, the syncs wait for threads.
            let deadline = ContinuousClock.now + .seconds(120)
            while !store.contains(asset), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try store.data(of: asset) == bytes)
        }
    }
}

extension StoreKind {

    /// `store` as an ``AssetContentStore``, or a test failure naming it.
    static func assetContent(_ store: any SyncServerStore) throws -> any AssetContentStore {
        guard let assets = store as? any AssetContentStore else {
            throw HTTPTestFailure("\(type(of: store)) does not keep asset content")
        }
        return assets
    }
}
