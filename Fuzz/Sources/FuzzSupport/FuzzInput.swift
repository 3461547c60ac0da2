public import Foundation

/// One fuzz input: a first byte that picks the variant (protocol version, transport mode,
/// configuration) and the bytes after it. An empty input is selector 0 with no bytes.
public struct FuzzInput {
    public let selector: UInt8
    public let body: [UInt8]

    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        let bytes = UnsafeBufferPointer(start: data, count: size)
        selector = bytes.first ?? 0
        body = Array(bytes.dropFirst())
    }

    /// The body as text, invalid UTF-8 repaired (as a WebSocket or HTTP layer hands it over).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body split at every `separator` byte, empty pieces kept.
    public func pieces(separatedBy separator: UInt8, maxSplits: Int = .max) -> [ArraySlice<UInt8>] {
        body.split(separator: separator, maxSplits: maxSplits, omittingEmptySubsequences: false)
    }
}

extension Data {
    /// `bytes` as a slice of a larger `Data`, so that its `startIndex` is not 0: what a decoder
    /// gets from `dropFirst()` or a subrange, and where code that assumes index 0 goes wrong.
    public static func slice(of bytes: some Collection<UInt8>) -> Data {
        var padded = Data([0xEE])
        padded.append(contentsOf: bytes)
        return padded.dropFirst()
    }
}
