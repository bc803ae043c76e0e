// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Pathbase",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "Pathbase", targets: ["Pathbase"]),
        .executable(name: "pathbase", targets: ["pathbase"]),
        .executable(name: "pathbase-bench", targets: ["pathbase-bench"]),
    ],
    dependencies: [
        // Macros (@Model, @Property, ...) are compiler plugins built on swift-syntax.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // The `pathbase` command line tool.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
            dependencies: ["PathbaseMacros"]
        ),
        .executableTarget(
            name: "pathbase",
            dependencies: [
                "Pathbase",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "pathbase-bench",
            dependencies: ["Pathbase"],
            path: "Benchmarks/Sources/pathbase-bench"
        ),
        .testTarget(
            name: "PathbaseTests",
            dependencies: ["Pathbase"]
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
