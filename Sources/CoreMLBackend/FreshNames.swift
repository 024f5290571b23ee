import ModelFormat

/// Names for the layers and tensors the backend adds to a model (a
/// lowering's, a composite's layers): `base`, or `base2`, `base3`, ...
/// when the model or an earlier call took it.
struct FreshNames {
    private var taken: Set<String> = []

    init() {}

    /// The names `model` uses: its inputs', layers' and tensors'.
    init(_ model: Model) {
        taken = Set(model.inputs.map(\.name))
        for node in model.nodes {
            taken.insert(node.name)
            taken.formUnion(node.outputs)
        }
    }

    mutating func make(_ base: String) -> String {
        var name = base, suffix = 1
        while taken.contains(name) {
            suffix += 1
            name = "\(base)\(suffix)"
        }
        taken.insert(name)
        return name
    }
}
