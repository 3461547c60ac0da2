import Testing

@testable import SocketIOPostgres

@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test("user, password, host, port and database")
    func full() throws {
        let url = try PostgresURL(parsing: "postgres://alice:s%40cret@db.example:6543/app")
        #expect(url.host == "db.example")
        #expect(url.port == 6543)
        #expect(url.username == "alice")
        #expect(url.password == "s@cret")
        #expect(url.database == "app")
    }

    @Test("port 5432 and no database by default; postgresql:// works too")
    func defaults() throws {
        let url = try PostgresURL(parsing: "postgresql://postgres@127.0.0.1")
        #expect(url.host == "127.0.0.1")
        #expect(url.port == 5432)
        #expect(url.username == "postgres")
        #expect(url.password == nil)
        #expect(url.database == nil)
    }

    @Test("an IPv6 host in brackets, sslmode=disable")
    func ipv6() throws {
        let url = try PostgresURL(parsing: "postgres://u@[::1]:5433/d?sslmode=disable")
        #expect(url.host == "::1")
        #expect(url.port == 5433)
    }

    @Test("malformed URLs throw invalidURL", arguments: [
        "",
        "127.0.0.1:5432",
        "mysql://u@h/d",
        "postgres://h:5432/d",
        "postgres://@h/d",
        "postgres://u@/d",
        "postgres://u@h:0/d",
        "postgres://u@h:99999/d",
        "postgres://u@h:port/d",
        "postgres://u@[::1/d",
        "postgres://u%zz@h/d",
        "postgres://u@h/d?sslmode=require",
        "postgres://u@h/d?application_name=x",
    ])
    func malformed(text: String) {
        let error = #expect(throws: PostgresClusterTransportError.self) { try PostgresURL(parsing: text) }
        guard case .invalidURL? = error else {
            Issue.record("expected invalidURL, got \(String(describing: error))")
            return
        }
    }

    @Test("the error never repeats the password")
    func passwordHidden() {
        let error = #expect(throws: PostgresClusterTransportError.self) {
            try PostgresURL(parsing: "postgres://u:hunter2%zz@h/d")
        }
        #expect(error.map { "\($0)".contains("password") && !"\($0)".contains("hunter2") } == true)
    }
}
