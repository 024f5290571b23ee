/// Names for the layers and tensors a stage adds to a model (a
/// lowering's, a composite's layers): `base`, or `base2`, `base3`, ...
/// when the model or an earlier call took it.
public struct FreshNames {
    private var taken: Set<String> = []

    public init() {}

    /// The names `model` uses: its inputs', layers' and tensors'.
    public init(_ model: Model) {
        taken = Set(model.inputs.map(\.name))
        for node in model.nodes {
            taken.insert(node.name)
            taken.formUnion(node.outputs)
        }
    }

    public mutating func make(_ base: String) -> String {
        var name = base, suffix = 1
        while taken.contains(name) {
            suffix += 1
            name = "\(base)\(suffix)"
        }
        taken.insert(name)
        return name
    }
}
