import Foundation
import PathbaseTestSupport
import Testing

/// `scripts/availability`: Linux checks no Apple availability, so this script is what stops
/// a declaration newer than the package's platforms (macOS 14, iOS 17) from landing.
@Suite("scripts/availability finds toolchain API newer than the package's platforms")
struct AvailabilityScriptTests {

    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs the script over one Swift file holding `source`.
    private func check(_ source: String) throws -> (status: Int32, output: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-availability-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(source.utf8).write(to: folder.appendingPathComponent("Fixture.swift"))
        let script = Self.root.appendingPathComponent("scripts/availability").path
        let result = try ChildProcess.run("/usr/bin/env", ["python3", script, "--sources", folder.path])
        return (result.status, result.output + result.errors)
    }

    @Test("a Mutex (macOS 15) in code for macOS 14 fails, naming the line and the versions")
    func newerDeclarationFails() throws {
        let result = try check(
            """
            import Synchronization

            final class Names: Sendable {
                // Mutex in a comment is not a use.
                private let names = Mutex<[String]>([])
            }
            """)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("Fixture.swift:5: `Mutex` needs macOS 15"), "\(result.output)")
        #expect(!result.output.contains("Fixture.swift:4"), "\(result.output)")
    }

    @Test("the same use inside @available or if #available of the right versions passes")
    func guardedUsePasses() throws {
        let result = try check(
            """
            import Synchronization

            @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
            final class Names: Sendable {
                private let names = Mutex<[String]>([])
            }

            func count() -> Int {
                if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
                    let atomic = Atomic<Int>(0)
                    return atomic.load(ordering: .relaxed)
                }
                return 0
            }
            """)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("0 uses found"), "\(result.output)")
    }

    @Test("a guard for macOS alone is not enough on iOS")
    func partialGuardFails() throws {
        let result = try check(
            """
            import Synchronization

            @available(macOS 15, *)
            let names = Mutex<[String]>([])
            """)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("iOS 18"), "\(result.output)")
        #expect(!result.output.contains("macOS 15"), "\(result.output)")
    }

    @Test("a newer initializer fails, named by its type and first label; an older one of the same type passes")
    func newerInitializerFails() throws {
        let result = try check(
            """
            func later() -> Duration {
                Duration(attoseconds: 5)
            }

            func earlier(_ bytes: [UInt8]) -> String {
                String(decoding: bytes, as: UTF8.self)
            }
            """)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("Fixture.swift:2: `Duration(attoseconds:` needs macOS 15"), "\(result.output)")
        #expect(!result.output.contains("Fixture.swift:6"), "\(result.output)")
    }

    @Test("text inside a multi-line string literal is not a use")
    func multilineStringIsText() throws {
        let result = try check(
            #"""
            let fixture = """
                let names = Mutex<[String]>([])
                """
            """#)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test("run without --sources, the script checks a package's Tests and Benchmarks as well as its Sources")
    func defaultFoldersIncludeTestsAndBenchmarks() throws {
        // A scratch package holding a copy of the script: the copy's defaults are the folders
        // of the package it sits in, as the real script's are this package's.
        let package = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-availability-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: package) }
        let files = [
            "Package.swift": """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "Fixture",
                platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
                targets: [])
            """,
            "Sources/Fixture/Names.swift": """
            let names = ["alice"]
            """,
            "Tests/FixtureTests/Held.swift": """
            import Synchronization

            let held = Mutex<[String]>([])
            """,
            "Benchmarks/Sources/fixture-bench/Count.swift": """
            import Synchronization

            let count = Atomic<Int>(0)
            """
        ]
        for (path, text) in files {
            let file = package.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        let script = package.appendingPathComponent("scripts/availability")
        try FileManager.default.createDirectory(at: script.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent("scripts/availability"), to: script)

        let result = try ChildProcess.run("/usr/bin/env", ["python3", script.path])
        let output = result.output + result.errors
        #expect(result.status == 1, "\(output)")
        #expect(output.contains("Tests/FixtureTests/Held.swift:3: `Mutex` needs macOS 15"), "\(output)")
        #expect(output.contains("Benchmarks/Sources/fixture-bench/Count.swift:3: `Atomic` needs macOS 15"), "\(output)")
        #expect(output.contains("3 files"), "\(output)")
    }

    @Test("the package's own Sources, Tests and Benchmarks use nothing newer than its platforms")
    func sourcesPass() throws {
        let script = Self.root.appendingPathComponent("scripts/availability").path
        let result = try ChildProcess.run("/usr/bin/env", ["python3", script])
        #expect(result.status == 0, "\(result.output)\(result.errors)")
    }
}
