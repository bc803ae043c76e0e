import Foundation
import Pathbase
import PathbaseLiveSync
import PathbaseServer
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// TLS through a real `pathbase serve --tls-certificate FILE --tls-key FILE` process on
/// SQLite: what a deployment without a TLS terminator runs, with the library's own clients.
@Suite("TLS: replicas sync with a pathbase serve process over https and hear it over wss", .enabled(if: TestCertificate.canMake))
struct ServeTLSTests {

    @Test(
        "a Replica whose HTTPSyncTransport trusts the certificate file pushes a record and an asset over https, another pulls both, a WebSocketLiveUpdates trusting the file hears the push over wss; an untrusting transport is refused and nothing of it is stored"
    )
    func replicasOverHTTPS() async throws {
        let tls = try TestCertificate()
        defer { tls.remove() }
        let file = ServerTestFiles.newPath()
        let added = try await ServeProcess.run(["accounts", "add", "alice", "--database", file])
        try #require(added.status == 0, "\(added.errors)")
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try await ServeProcess(store: ["--database", file, "--tls-certificate", tls.certificate, "--tls-key", tls.key])
        defer { serve.kill() }
        #expect(serve.url.scheme == "https", "\(serve.url)")
        // By name: the certificate names 127.0.0.1 and localhost; TLS clients send the host
        // as SNI, which may not be an IP address.
        let server = try #require(URL(string: "https://localhost:\(serve.url.port ?? 0)"))

        // The live line first, so that it hears the push.
        let heard = Locked<[LiveNotice]>([])
        let connected = Locked(false)
        let live = WebSocketLiveUpdates(server: server, token: token, trustedCertificatesFile: tls.certificate)
        let listening = Task {
            try await live.listen(connected: { connected.withLock { $0 = true } }, changed: { notice in heard.withLock { $0.append(notice) } })
        }
        defer { listening.cancel() }
        // Generous: beside the whole parallel suite on two cores, a debug build's TLS
        // handshake and upgrade took over a minute once (the push was still heard).
        let connectDeadline = Date().addingTimeInterval(240)
        while !connected.current, Date() < connectDeadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(connected.current, "the wss client did not connect within 240 s")

        // Untrusted (the system's trust store): refused before any record is sent.
        let stranger = try SQLiteDatabase(path: ServerTestFiles.newPath())
        Person.create(in: stranger, id: 2, name: "Mallory")
        let refused = await #expect(throws: URLError.self) {
            try await Replica(database: stranger, transport: HTTPSyncTransport(server: server, token: token)).sync()
        }
        #expect(refused?.localizedDescription.contains("SSL certificate problem") == true, "\(String(describing: refused))")

        let phone = try SQLiteDatabase(path: ServerTestFiles.newPath())
        Person.create(in: phone, id: 1, name: "Alice")
        let content = Data("a recording sent over tls".utf8)
        let asset = try await phone.storeAsset(content)
        ServerVideo.create(in: phone, id: 1, file: asset)
        let transport = HTTPSyncTransport(server: server, token: token, trustedCertificatesFile: tls.certificate)
        let pushed = try await Replica(database: phone, transport: transport).sync()
        #expect(pushed.pushed > 0 && pushed.acknowledged == pushed.pushed, "\(pushed)")
        #expect(pushed.uploadedAssetBytes == Int64(content.count) && pushed.assetFailures.isEmpty, "\(pushed)")

        let laptop = try SQLiteDatabase(path: ServerTestFiles.newPath())
        let pulled = try await Replica(database: laptop, transport: transport).sync()
        #expect(pulled.assetFailures.isEmpty, "\(pulled)")
        #expect(Person(database: laptop, id: 1).name == "Alice")
        #expect(pulled.pulled == pushed.pushed, "only the trusting replica's records are on the server: \(pulled)")
        let mallory: String? = laptop.get(Path(model: 1, instance: 2, property: 1))
        #expect(mallory == nil, "the untrusting replica's record reached the server")
        let received = try #require(ServerVideo(database: laptop, id: 1).file)
        #expect(try Data(contentsOf: laptop.assetStore().fileURL(for: received)) == content)

        let noticeDeadline = Date().addingTimeInterval(60)
        while heard.current.isEmpty, Date() < noticeDeadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!heard.current.isEmpty, "no live notice over wss after the push")
        #expect(serve.isRunning)
    }
}
