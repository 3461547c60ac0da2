import Foundation
import SwitchboardDemo
import Testing

/// The README's "The demo server's contract" is `DemoApplication`'s own description, verbatim:
/// `sio serve --help`, the README and the server cannot drift apart.
@Suite struct DemoContractReadmeTests {
    @Test func theReadmeShowsTheDemoApplicationsContract() throws {
        let readme = try String(contentsOf: SioBinary.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = try #require(readme.range(of: "<!-- demo-contract:begin -->\n"))
        let end = try #require(readme.range(of: "\n<!-- demo-contract:end -->", range: begin.upperBound..<readme.endIndex))
        let shown = String(readme[begin.upperBound..<end.lowerBound])
        #expect(shown == DemoApplication.contractMarkdown, "the README's contract differs; it should read:\n\(DemoApplication.contractMarkdown)")
    }
}
