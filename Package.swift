// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Pathbase",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "Pathbase", targets: ["Pathbase"]),
        .library(name: "PathbaseSQLite", targets: ["PathbaseSQLite"]),
        .library(name: "PathbaseServer", targets: ["PathbaseServer"]),
        .executable(name: "pathbase", targets: ["pathbase"]),
        .executable(name: "pathbase-bench", targets: ["pathbase-bench"]),
    ],
    dependencies: [
        // Macros (@Model, @Property, ...) are compiler plugins built on swift-syntax.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // The `pathbase` command line tool.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // SQLiteDatabase: the best-kept SQLite toolkit opens, configures and migrates the
        // file; its GRDBSQLite module gives the C API for the hot paths. Needs libsqlite3-dev
        // on Linux.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Models are `ObservableObject`s: Combine on Apple platforms, its open-source
        // reimplementation on Linux, where Combine does not exist.
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        .macro(
            name: "PathbaseMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "Pathbase",
            dependencies: [
                "PathbaseMacros",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ]
        ),
        .target(
            name: "PathbaseSQLite",
            dependencies: [
                "Pathbase",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "PathbaseServer",
            dependencies: [
                "Pathbase",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "pathbase",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "pathbase-bench",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                // Baselines: a hand-written GRDB record, and raw SQLite C calls.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Benchmarks/Sources/pathbase-bench"
        ),
        // A child process for the durability tests: writes batches until it is killed.
        .executableTarget(
            name: "PathbaseCrashWriter",
            dependencies: ["Pathbase", "PathbaseSQLite"],
            path: "Tests/PathbaseCrashWriter"
        ),
        .testTarget(
            name: "PathbaseTests",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ]
        ),
        .testTarget(
            name: "PathbaseSQLiteTests",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                // Built so that the durability tests can launch it.
                "PathbaseCrashWriter",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "PathbaseServerTests",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                "PathbaseServer",
            ]
        ),
        .testTarget(
            name: "PathbaseMacrosTests",
            dependencies: [
                "PathbaseMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
