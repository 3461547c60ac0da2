// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for the decoders that read bytes from the network. A separate package so
// that `swift build` / `swift test` at the repository root never build with the fuzzer
// instrumentation. Build and run them all with `scripts/fuzz` from the repository root.
//
// Each target's `Fuzz<Name>.swift` holds the entry libFuzzer calls,
// `@_cdecl("LLVMFuzzerTestOneInput") public func fuzz(_:_:)`. On Linux SwiftPM renames an
// executable's entry point to `<Target>_main` and links with `--defsym main=<Target>_main`, so a
// target without a `main` does not link, and libFuzzer's own `main` is never used. Hence each
// target also has a one-line `main.swift` that hands its entry to `LLVMFuzzerRunDriver`
// (libFuzzer's documented entry for programs that keep their own `main`, declared in the C
// target `CLibFuzzer`), which takes libFuzzer's usual command-line flags.

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// One fuzz entry: an executable that depends on the support module and `products`.
func fuzzTarget(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: "Switchboard") },
        swiftSettings: upcoming
    )
}

let package = Package(
    name: "SwitchboardFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Switchboard", path: ".."),
    ],
    targets: [
        .target(name: "CLibFuzzer"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CLibFuzzer", .product(name: "SocketIOProtocol", package: "Switchboard")],
            swiftSettings: upcoming
        ),
        fuzzTarget("FuzzEngineIOPacket", ["SocketIOProtocol"]),
        fuzzTarget("FuzzPollingPayload", ["SocketIOProtocol"]),
        fuzzTarget("FuzzSocketIOPacket", ["SocketIOProtocol"]),
        fuzzTarget("FuzzJSON", ["SocketIOProtocol"]),
        fuzzTarget("FuzzEnvelope", ["SocketIOProtocol"]),
        fuzzTarget("FuzzEngineRequest", ["SocketIOProtocol", "SocketIOServer"]),
        fuzzTarget("FuzzMessagePack", ["SocketIOProtocol"]),
    ],
    swiftLanguageModes: [.v6]
)
