import CoreMLBackend
import ModelFormat

/// The oldest systems a Core ML file loads on, from its specification
/// version, and the layers that need that version.
public struct DeploymentRequirement: Equatable, Sendable {
    public var specificationVersion: Int
    /// "iOS 13", "macOS 10.15", "tvOS 13", "watchOS 6".
    public var systems: [String]
    /// The layers that need a version above 1, grouped by Core ML layer
    /// type in order of first appearance: `[("clip", ["relu1", "relu2"])]`.
    public var raisedBy: [Group]

    public struct Group: Equatable, Sendable {
        public var type: String
        public var version: Int
        public var layers: [String]
    }

    public init(model: Model, specificationVersion: Int) {
        self.specificationVersion = specificationVersion
        systems = DeploymentTarget.oldest(for: Int32(clamping: specificationVersion)).map(\.description)
        var groups: [Group] = []
        for needed in SpecificationVersion.layersNeedingNewerVersions(model, at: Int32(clamping: specificationVersion)) {
            if let index = groups.firstIndex(where: { $0.type == needed.type }) {
                groups[index].layers.append(needed.layer)
            } else {
                groups.append(Group(type: needed.type, version: Int(needed.version), layers: [needed.layer]))
            }
        }
        raisedBy = groups
    }

    /// `iOS 13, macOS 10.15, tvOS 13, watchOS 6 (specification 4 for its
    /// 35 clip layers; float16 weights in 2 layers)`: each kind of layer
    /// that raises the version with its count, not the layers by name (a
    /// ViT has hundreds, with long names); --json lists them.
    public var summary: String {
        [systemsText, reasonText].compactMap { $0 }.joined(separator: " ")
    }

    /// The systems, and on the lines after, the reason wrapped to `width`
    /// columns after a `indent`-column indent (the summary's label column),
    /// broken between the kinds of layer (`5 clip layers;`).
    public func lines(indent: Int, width: Int = 100) -> [String] {
        guard let reason = reasonText else { return [systemsText] }
        let parts = reason.components(separatedBy: "; ")
        var lines: [String] = []
        var current = ""
        for (index, part) in parts.enumerated() {
            let piece = part + (index < parts.count - 1 ? ";" : "")
            if !current.isEmpty && indent + current.count + 1 + piece.count > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + piece
        }
        lines.append(current)
        return [systemsText] + lines.flatMap { LayerTable.wrap($0, width: width - indent) }
    }

    var systemsText: String {
        systems.isEmpty ? "a Core ML newer than this toolkit knows" : systems.joined(separator: ", ")
    }

    /// `(specification 4 for its 35 clip layers)`; nil at specification 1.
    var reasonText: String? {
        guard specificationVersion > 1 else { return nil }
        guard !raisedBy.isEmpty else {
            return "(specification \(specificationVersion) as written; its layers need no more than 1)"
        }
        let reasons = raisedBy.map { group in
            if group.layers.isEmpty || group.type.hasSuffix(" model") { return group.type }  // the model's, not its layers'

            let count = group.layers.count, plural = group.layers.count == 1 ? "" : "s"
            if group.type.hasSuffix("weights") { return "\(group.type) in \(count) layer\(plural)" }
            return "\(count) \(group.type) layer\(plural)"
        }
        return "(specification \(specificationVersion) for its \(reasons.joined(separator: "; ")))"
    }
}
