import FuzzSupport
import SocketIOProtocol

/// Any bytes as MessagePack (what the cluster adapter reads back from the attachments table). A
/// value that decodes must encode to bytes (its smallest form) that decode and encode to the same
/// bytes again; a value with a JSON form must survive that round trip too. Compared as bytes:
/// a NaN float decodes faithfully but is not equal to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let value = try? MessagePackValue(decoding: UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    let encoded = value.encoded
    let again = try? MessagePackValue(decoding: encoded)
    invariant(again?.encoded == encoded, "the smallest form of \(value) does not read back the same")
    if let json = try? JSONValue(messagePack: value) {
        let packed = MessagePackValue(json: json).encoded
        let back = try? JSONValue(messagePack: MessagePackValue(decoding: packed))
        invariant(back.map { MessagePackValue(json: $0).encoded } == packed, "\(json) does not survive MessagePack")
    }
    return 0
}
