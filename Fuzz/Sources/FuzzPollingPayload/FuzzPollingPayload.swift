import Foundation
import FuzzSupport
import SocketIOProtocol

/// One HTTP long-polling body. Selector modulo 3: a v4 text body, a v3 text body
/// (length-prefixed), or a v3 binary (XHR2) body.
///
/// A body that decodes must decode again, unchanged, from its re-encoding. The text bodies are
/// also read by a plain reference reader written from the specification (v4: split at every
/// 0x1E byte; v3: lengths in UTF-16 code units), which must find the same packets, and whose
/// success on a body of well-formed records means the decoder must succeed too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    switch input.selector % 3 {
    case 0: checkText(input.text, version: .v4)
    case 1: checkText(input.text, version: .v3)
    default: checkBinaryV3(.slice(of: input.body))
    }
    return 0
}

private func checkText(_ body: String, version: EngineIOVersion) {
    let decoded = try? PollingPayload.decode(body, version: version)
    let reference = version == .v4 ? referenceRecordsV4(body) : referenceRecordsV3(body)
    let fromReference = reference.flatMap { records in
        try? records.map { record throws(ProtocolError) in try EnginePacket.decode(text: record, version: version) }
    }
    invariant(decoded == fromReference, "\(version) body \(Array(body.utf8)): decoder \(String(describing: decoded)), reference \(String(describing: fromReference))")

    guard let packets = decoded else { return }
    let encoded = PollingPayload.encode(packets, version: version)
    invariant((try? PollingPayload.decode(encoded, version: version)) == packets, "\(packets) → \(encoded)")
}

private func checkBinaryV3(_ body: Data) {
    guard let packets = try? PollingPayload.decodeBinaryV3(body) else { return }
    let encoded = PollingPayload.encodeBinaryV3(packets)
    invariant((try? PollingPayload.decodeBinaryV3(encoded)) == packets, "\(packets) → \(Array(encoded))")
}

/// v4: the records between 0x1E bytes; `nil` for an empty body.
private func referenceRecordsV4(_ body: String) -> [String]? {
    guard !body.isEmpty else { return nil }
    return body.utf8.split(separator: 0x1E, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
}

/// v3: `<length>:<record>` repeated, lengths in UTF-16 code units, 1 to 9 digits, records not
/// empty and not splitting a surrogate pair; `0:` alone is no packets. `nil` when malformed.
private func referenceRecordsV3(_ body: String) -> [String]? {
    guard !body.isEmpty else { return nil }
    if body == "0:" { return [] }
    let units = Array(body.utf16)
    var records: [String] = []
    var index = 0
    while index < units.count {
        var length = 0
        var digits = 0
        while index < units.count, units[index] != UInt16(UInt8(ascii: ":")) {
            let unit = units[index]
            guard unit >= 48, unit <= 57, digits < 9 else { return nil }
            length = length * 10 + Int(unit - 48)
            digits += 1
            index += 1
        }
        guard digits > 0, index < units.count, length > 0 else { return nil }
        index += 1
        guard units.count - index >= length else { return nil }
        guard let record = String(validating: units[index..<(index + length)], as: UTF16.self) else { return nil }
        records.append(record)
        index += length
    }
    return records
}
