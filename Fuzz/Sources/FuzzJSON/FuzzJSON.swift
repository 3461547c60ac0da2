import FuzzSupport
import SocketIOProtocol

/// Any bytes as JSON text. A value that parses must be written and parsed back to the same value
/// (non-finite numbers read back as `null`, as `JSON.stringify` writes them). The selector byte
/// is part of the text here.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let value = try? JSONValue(parsing: UnsafeRawBufferPointer(start: data, count: size)) else { return 0 }
    let text = value.jsonString
    invariant((try? JSONValue(parsing: text)) == value.afterWriting, "\(value) → \(text)")
    return 0
}
