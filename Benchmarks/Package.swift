// swift-tools-version: 6.1
import PackageDescription

// A separate package so that `swift build` / `swift test` at the repository root never build
// the benchmark dependencies. Run from this directory:
//   swift package --disable-sandbox benchmark
let package = Package(
    name: "SwitchboardBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Switchboard", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Codec",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SocketIOProtocol", package: "Switchboard"),
            ],
            path: "Benchmarks/Codec",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "MessageCenter",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SocketIOProtocol", package: "Switchboard"),
                .product(name: "Switchboard", package: "Switchboard"),
            ],
            path: "Benchmarks/MessageCenter",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
