/// What one op (or layer) mapping of a frontend does with each attribute a
/// source node can carry. Every attribute is honoured or refused (DESIGN
/// 20): an attribute the ledger does not name, or names with `only` and the
/// node sets to another value, stops the conversion naming the node and the
/// attribute, instead of converting a model that computes something else.
///
/// Each frontend keeps one ledger per op type beside its op table, renders
/// a node's attributes as `(name, value)` strings in its own spelling, and
/// asks `refused(_:)` before the mapping runs. A test walks every mapping
/// and requires its ledger; the attribute sweep feeds each honoured
/// attribute values at the edges of its domain and compares with the
/// framework.
public struct AttributeLedger: Sendable, Equatable {
    public enum Rule: Sendable, Equatable {
        /// The mapping reads it and computes what the source computes for
        /// each value it accepts; a value it cannot express it refuses by
        /// name itself.
        case honoured
        /// Cannot change what inference computes: a training setting, an
        /// initializer, a display name, a type the mapping checks elsewhere.
        case inert
        /// Accepted at this value only (the source's default, spelled as
        /// the frontend renders values); any other value refuses the model.
        case only(String)
    }

    /// Attribute name -> rule. A name missing here is refused at any value.
    public let rules: [String: Rule]

    public init(_ rules: [String: Rule]) { self.rules = rules }

    /// - Parameters:
    ///   - honours: attributes the mapping reads and implements.
    ///   - inert: attributes that cannot change the result.
    ///   - only: attributes accepted at one value only (rendered as the
    ///     frontend renders them).
    public init(honours: [String] = [], inert: [String] = [], only: [String: String] = [:]) {
        var rules: [String: Rule] = [:]
        for name in honours { rules[name] = .honoured }
        for name in inert { rules[name] = .inert }
        for (name, value) in only { rules[name] = .only(value) }
        self.rules = rules
    }

    /// A ledger for an op that takes no attributes at all.
    public static let none = AttributeLedger([:])

    /// The attributes among `present` (as a node carries them, values
    /// rendered) that this ledger does not allow, in the order given.
    public func refused(_ present: [(name: String, value: String)]) -> [(name: String, value: String)] {
        present.filter { attribute in
            switch rules[attribute.name] {
            case .honoured?, .inert?: false
            case .only(let value)?: value != attribute.value
            case nil: true
            }
        }
    }

    /// The names of the honoured attributes, sorted (for tests and tables).
    public var honoured: [String] { rules.filter { $0.value == .honoured }.map(\.key).sorted() }

    /// One clause for an error, "nearest_mode 'ceil' is not supported", or
    /// for several, "attributes a 'x', b 'y' are not supported". Values are
    /// cut at 60 characters.
    public static func message(refusing refused: [(name: String, value: String)]) -> String {
        let shown = refused.map { "\($0.name) \(quoted($0.value))" }
        return refused.count == 1 ? "\(shown[0]) is not supported" : "attributes \(shown.joined(separator: ", ")) are not supported"
    }

    private static func quoted(_ value: String) -> String {
        let cut = value.count > 60 ? String(value.prefix(57)) + "..." : value
        return "'" + cut.map { $0.isNewline || $0 == "\u{1B}" ? " " : String($0) }.joined() + "'"
    }
}

/// A frontend's ledgers keyed by op type, with the check every driver makes.
public struct AttributeLedgers: Sendable {
    public let ledgers: [String: AttributeLedger]

    public init(_ ledgers: [String: AttributeLedger]) { self.ledgers = ledgers }

    public subscript(op: String) -> AttributeLedger? { ledgers[op] }

    /// The clause refusing `present` for an op of type `op`, or nil when
    /// every attribute is allowed. An op without a ledger allows none; an
    /// attribute given twice is refused whatever its rule (readers differ
    /// on which one counts: Darknet takes the first, protobuf the last).
    public func refusal(op: String, present: [(name: String, value: String)]) -> String? {
        var seen = Set<String>()
        if let twice = present.first(where: { !seen.insert($0.name).inserted }) {
            return "attribute \(twice.name) is given more than once"
        }
        let refused = (ledgers[op] ?? .none).refused(present)
        return refused.isEmpty ? nil : AttributeLedger.message(refusing: refused)
    }

    /// The op types of `mapped` that have no ledger (a test keeps this empty).
    public func missing(for mapped: some Sequence<String>) -> [String] {
        mapped.filter { ledgers[$0] == nil }.sorted()
    }
}
