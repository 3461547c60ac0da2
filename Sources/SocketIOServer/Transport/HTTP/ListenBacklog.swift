/// How many connections the kernel may hold for the server before it accepts them.
///
/// Hummingbird's default is 256. A burst past it (a few hundred clients reconnecting at once,
/// each opening a long-poll and then a WebSocket) made the kernel drop connection attempts, and
/// each one waited out TCP's one-second SYN retry: a round of 200 clients over polling and
/// upgrade took 1.1 s instead of 0.2 (`nstat TcpExtListenOverflows` counted the drops). Node
/// listens with 511; this asks for more, and Linux caps it at `net.core.somaxconn` (4096 by
/// default since 5.4).
enum ListenBacklog {
    static let size = 4096
}
