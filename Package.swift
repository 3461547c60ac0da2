// swift-tools-version: 6.1
import PackageDescription

/// Upcoming features every target turns on (see STYLE.md).
let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Switchboard",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "SocketIOProtocol", targets: ["SocketIOProtocol"]),
        .library(name: "SocketIO", targets: ["SocketIO"]),
        .library(name: "SocketIOServer", targets: ["SocketIOServer"]),
        .library(name: "Switchboard", targets: ["Switchboard"]),
        .library(name: "SwitchboardTesting", targets: ["SwitchboardTesting"]),
        .library(name: "SocketIOPostgres", targets: ["SocketIOPostgres"]),
        .executable(name: "sio", targets: ["sio"]),
    ],
    // `Cluster` gives `sio` the PostgreSQL cluster transport (`sio serve --cluster postgres://…`).
    // Off by default so that the first command a newcomer runs, `swift run sio demo`, does not
    // build postgres-nio and, through it, a second copy of BoringSSL (swift-crypto's);
    // `scripts/test` turns it on. The `SocketIOPostgres` library product is always available.
    traits: [
        .trait(name: "Cluster", description: "The PostgreSQL cluster transport in the sio tool (postgres-nio)."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Network.framework under the client's connections on Apple platforms; empty on Linux.
        .package(url: "https://github.com/apple/swift-nio-transport-services.git", from: "1.28.0"),
        // Without its default `ConfigurationSupport` trait: nothing here reads swift-configuration,
        // and building it was about a tenth of the first command's CPU time.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        // Already in the graph through Hummingbird: the server's metrics (recorded only when the
        // app bootstraps a backend). swift-prometheus serves them for `sio serve --metrics`.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Already in the graph through Hummingbird; the server's WebSocket upgrade uses them.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Already in the graph through Hummingbird; named so the server can stop gracefully.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // The PostgreSQL cluster transport (SocketIOPostgres).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Only for `scripts/docs` (the `generate-documentation` plugin); nothing links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "SocketIOProtocol",
            swiftSettings: upcoming
        ),
        // The plumbing the client, the server and the platform layer share (observer streams,
        // pending replies with deadlines, the injected clock's timeline, server addresses, the
        // disabled logger, the live-object registry); `package` types, not a product.
        .target(
            name: "SwitchboardCore",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        // The NIO WebSocket client (TCP, TLS, the upgrade, frames, fences) under both the
        // engine's WebSocket transport and the platform layer's plain WebSocket driver;
        // `package` types, not a product.
        .target(
            name: "WebSocketClient",
            dependencies: [
                "SwitchboardCore",
                .product(name: "NIOTransportServices", package: "swift-nio-transport-services"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "SocketIO",
            dependencies: [
                "SocketIOProtocol",
                "SwitchboardCore",
                "WebSocketClient",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "SocketIOServer",
            dependencies: [
                "SocketIOProtocol",
                "SwitchboardCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: upcoming
        ),
        // The cluster transport over PostgreSQL's LISTEN/NOTIFY, wire-compatible with
        // `@socket.io/postgres-adapter`; a product of its own so only servers that use it link
        // postgres-nio.
        .target(
            name: "SocketIOPostgres",
            dependencies: [
                "SocketIOServer",
                "SocketIOProtocol",
                "SwitchboardCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "Switchboard",
            dependencies: [
                "SocketIO",
                "SocketIOProtocol",
                "SwitchboardCore",
                "WebSocketClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: upcoming
        ),
        // The in-memory server and driver, for apps' tests and previews: a product of its own so
        // it stays out of the production API (as grpc-swift ships its in-process transport).
        .target(
            name: "SwitchboardTesting",
            dependencies: [
                "Switchboard",
                "SocketIOProtocol",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        // The typed-sharing visitor of SPEC.md's worked example: demo code, used by `sio demo`
        // and tested; not a product.
        .target(
            name: "SharingExample",
            dependencies: ["SocketIOProtocol"],
            path: "Examples/SharingExample",
            swiftSettings: upcoming
        ),
        // The demo application of `sio serve`, shared by `sio` and the tests (python peers mirror it);
        // not a product: its contract is the README's table, not a library API.
        .target(
            name: "SwitchboardDemo",
            dependencies: [
                "SocketIOServer",
                "SocketIOProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "Harness",
            dependencies: [
                "SwitchboardCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "SioInteractive",
            dependencies: ["SocketIOProtocol"],
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "sio",
            dependencies: [
                "Harness",
                "SioInteractive",
                "Switchboard",
                "SwitchboardDemo",
                "SharingExample",
                "SocketIO",
                "SocketIOProtocol",
                "SocketIOServer",
                .target(name: "SocketIOPostgres", condition: .when(traits: ["Cluster"])),
                "SwitchboardCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        // The snippets of the README and the DocC articles as complete programs that
        // `scripts/test` runs (Tests/SioTests/Examples); not products.
        .executableTarget(
            name: "ClientExample",
            dependencies: ["SocketIO"],
            path: "Examples/ClientExample",
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "PlatformExample",
            dependencies: ["Switchboard"],
            path: "Examples/PlatformExample",
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "PlatformLayerExample",
            dependencies: ["Switchboard", "SwitchboardTesting"],
            path: "Examples/PlatformLayerExample",
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "ServerExample",
            dependencies: [
                "SocketIOServer",
                "SocketIO",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/ServerExample",
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "MountedExample",
            dependencies: [
                "SocketIOServer",
                "SocketIO",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/MountedExample",
            swiftSettings: upcoming
        ),
        .target(
            name: "SwitchboardTestSupport",
            dependencies: [
                "Harness",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "SwitchboardCoreTests",
            dependencies: [
                "SwitchboardCore",
                "SwitchboardTestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "SocketIOProtocolTests",
            dependencies: ["SocketIOProtocol", "SwitchboardTestSupport"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "SocketIOServerTests",
            dependencies: [
                "SocketIOServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                "Harness",
                "SwitchboardCore",
                "SwitchboardTestSupport",
                "SwitchboardDemo",
                "SocketIO",
                "SocketIOProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "SocketIOPostgresTests",
            dependencies: [
                "SocketIOPostgres",
                "SocketIOServer",
                "SocketIOProtocol",
                "SwitchboardCore",
                "Harness",
                "SwitchboardTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "SwitchboardTests",
            dependencies: [
                "Harness",
                "Switchboard",
                "SwitchboardTesting",
                "SharingExample",
                "SwitchboardTestSupport",
                "SwitchboardDemo",
                "SocketIO",
                "SocketIOProtocol",
                "SocketIOServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "SioTests",
            dependencies: [
                "SioInteractive",
                "SocketIO",
                "SwitchboardTestSupport",
                "SwitchboardDemo",
                "SocketIOProtocol",
                "SocketIOServer",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "SocketIOTests",
            dependencies: [
                "Harness",
                "SocketIO",
                "WebSocketClient",
                "SwitchboardTestSupport",
                "SwitchboardDemo",
                "SocketIOProtocol",
                "SocketIOServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
    ],
    swiftLanguageModes: [.v6]
)
