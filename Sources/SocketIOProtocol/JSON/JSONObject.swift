/// A JSON object that keeps its keys in insertion order.
///
/// Order matters on the wire: socket.io's encoder writes keys in insertion order and numbers
/// binary placeholders in traversal order, and tests compare encodings byte for byte. Equality
/// ignores order, as JSON's does. Lookups are linear, which is fastest for the small objects
/// Socket.IO payloads carry; a duplicate key on decode keeps the last value, like `JSON.parse`.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The members in order.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// Key → position, kept only once an object is large, so building or reading an object
    /// with many keys (say, a hostile payload with 100,000) stays linear, not quadratic.
    private var index: [String: Int] = [:]
    private static let indexThreshold = 16

    /// An empty object.
    public init() { members = [] }

    /// An object with these members; a later duplicate key replaces the earlier value in place.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        self.members = []
        for (key, value) in members { self[key] = value }
    }

    /// The members the parser collected, in order, stored with exactly their count's capacity;
    /// a later duplicate key replaces the earlier value in place, as in ``init(_:)``.
    init(parsedMembers: ArraySlice<(key: String, value: JSONValue)>) {
        members = []
        members.reserveCapacity(parsedMembers.count)
        for (key, value) in parsedMembers { self[key] = value }
    }

    /// The value of a dictionary literal.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// Gets a member, sets one (appending a new key, replacing an existing one in place), or
    /// removes one when set to `nil`.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return members[position].value
        }
        set {
            switch (position(of: key), newValue) {
            case (let position?, let value?):
                members[position].value = value
            case (let position?, nil):
                members.remove(at: position)
                rebuildIndex()
            case (nil, let value?):
                members.append((key, value))
                if !index.isEmpty {
                    index[key] = members.count - 1
                } else if members.count > Self.indexThreshold {
                    rebuildIndex()
                }
            case (nil, nil):
                break
            }
        }
    }

    /// The same keys in the same order with each value transformed; the keys are unchanged, so
    /// the key index is kept as it is.
    func mapValues<Failure: Error>(
        _ transform: (JSONValue) throws(Failure) -> JSONValue
    ) throws(Failure) -> JSONObject {
        var mapped = self
        mapped.members = []
        mapped.members.reserveCapacity(members.count)
        for member in members { mapped.members.append((member.key, try transform(member.value))) }
        return mapped
    }

    private func position(of key: String) -> Int? {
        if !index.isEmpty { return index[key] }
        return members.firstIndex { $0.key == key }
    }

    private mutating func rebuildIndex() {
        guard members.count > Self.indexThreshold else {
            index = [:]
            return
        }
        index = Dictionary(members.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The members in order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    /// Whether the two are the same (providers: the same `id`).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for member in lhs.members where rhs[member.key] != member.value { return false }
        return true
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with `==`.
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}
