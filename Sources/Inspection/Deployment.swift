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
    /// clip layers: relu1, relu2, ... 35 in all)`.
    public var summary: String {
        let systemsText = systems.isEmpty ? "a Core ML newer than this toolkit knows" : systems.joined(separator: ", ")
        guard specificationVersion > 1 else { return systemsText }
        guard !raisedBy.isEmpty else {
            return "\(systemsText) (specification \(specificationVersion) as written; its layers need no more than 1)"
        }
        let reasons = raisedBy.map { group in
            let shown = group.layers.prefix(3).joined(separator: ", ")
            let more = group.layers.count > 3 ? ", ... \(group.layers.count) in all" : ""
            if group.type.hasSuffix(" model") { return group.type }
            return group.type.hasSuffix("weights") ? "\(group.type) in \(shown)\(more)" : "\(group.type) layers: \(shown)\(more)"
        }
        return "\(systemsText) (specification \(specificationVersion) for its \(reasons.joined(separator: "; ")))"
    }
}
