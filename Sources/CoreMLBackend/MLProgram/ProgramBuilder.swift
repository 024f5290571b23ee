import CoreMLSchema
import ModelFormat

/// The operations of one ML Program function being written, in order:
/// every operation's parameters are `const` operations before it, as
/// coremltools writes them; float constants of `blobThreshold` values or
/// more go to the weight file, smaller ones stay in the program. With
/// `float16`, as coremltools' float16 compute precision writes a program
/// for iOS 15: every operation computes in float16 and every float
/// constant is stored in float16 (`HalfRounding`); `cast` operations
/// convert the float32 inputs and outputs.
final class ProgramBuilder {
    /// coremltools' rule: a constant of 10 elements or more is a blob.
    static let blobThreshold = 10

    let spec: SpecBuilder
    let options: ProgramOptions
    var float16: Bool { options.float16 }
    /// The first constant holding a value beyond float16's range (`HalfRounding.overflows`), when `float16`.
    private(set) var overflowingConstant: String?
    /// The first constant that cannot be compressed, and why (`compressPending`).
    var compressionFailure: String?
    /// The compressed constants whose values `compressPending` computes.
    var pendingCompressions: [PendingCompression] = []
    private(set) var operations: [UnsafeMutablePointer<MILOperation>] = []
    var blobs = BlobFile()
    private var usedNames: Set<String> = []

    init(spec: SpecBuilder, options: ProgramOptions = ProgramOptions()) {
        self.spec = spec
        self.options = options
    }

    /// The data type of the values operations compute.
    var computeType: MILDataType {
        float16 ? CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16 : CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT32
    }

    /// Claims `name` as is (an input or output of the model).
    func reserve(_ name: String) {
        usedNames.insert(name)
    }

    /// A fresh value name from `base`: a MIL identifier
    /// (`[A-Za-z_][A-Za-z0-9_]*`), with a number added when taken.
    func freshName(_ base: String) -> String {
        var cleaned = String(base.unicodeScalars.map { Self.isIdentifierScalar($0) ? Character($0) : "_" })
        if cleaned.isEmpty || cleaned.first!.isNumber { cleaned = "_" + cleaned }
        var name = cleaned
        var counter = 0
        while usedNames.contains(name) {
            counter += 1
            name = "\(cleaned)_\(counter)"
        }
        usedNames.insert(name)
        return name
    }

    /// Whether `name` can be a MIL value name as it is.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy(isIdentifierScalar)
    }

    private static func isIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_")
    }

    /// A `const` of immediate `data`, shaped `shape` (nil: a scalar).
    /// - Returns: its value's name.
    func constant(_ base: String, _ data: MILData, shape: [Int]? = nil) -> String {
        let name = freshName(base)
        var data = data
        if float16, case .floats(let values) = data {
            if overflowingConstant == nil, values.contains(where: HalfRounding.overflows) { overflowingConstant = name }
            data = .halfs(HalfRounding.bits(values))
        }
        let value = spec.milValue(data, shape: shape)
        append("const", name: name, inputs: [], output: value.pointee.type, attributes: [spec.milEntry("val", value)])
        return name
    }

    /// A float32 `const` of `weights` shaped `shape`: in the weight file
    /// when it holds `blobThreshold` values or more.
    func constant(_ base: String, _ weights: Weights, shape: [Int]) -> String {
        guard weights.count >= Self.blobThreshold else { return constant(base, .floats(weights.values), shape: shape) }
        if case .quantized(let bits, let mode)? = options.compression, weights.count >= Self.compressionThreshold,
           let name = compressedConstant(base, weights, shape: shape, bits: bits, mode: mode) {
            return name
        }
        spec.retain(weights)
        let name = freshName(base)
        // Values beyond float16's range are refused as the blob is written (`BlobFile.write`): the weights are computed once.
        let value = spec.milBlobValue(shape: shape, offset: blobs.add(weights, float16: float16, name: name), float16: float16)
        append("const", name: name, inputs: [], output: value.pointee.type, attributes: [spec.milEntry("val", value)])
        return name
    }

    /// An operation of `type` whose inputs are bound to the named values,
    /// with one float32 output of `shape`.
    /// - Returns: the output's name.
    @discardableResult
    func operation(_ type: String, _ base: String, _ inputs: KeyValuePairs<String, String>, shape: [Int], dataType: MILDataType? = nil) -> String {
        operation(type, base, inputs.map { ($0.key, [$0.value]) }, shape: shape, dataType: dataType)
    }

    /// As `operation(_:_:_:shape:)`, an input bound to several values (concat's `values`), the output of
    /// `dataType` (nil: `computeType`).
    @discardableResult
    func operation(_ type: String, _ base: String, _ inputs: [(String, [String])], shape: [Int], dataType: MILDataType? = nil) -> String {
        let name = freshName(base)
        append(type, name: name, inputs: inputs.map { ($0.0, $0.1.map(binding)) }, output: spec.milTensorType(dataType ?? computeType, shape))
        return name
    }

    /// An operation of `type` with one output of the compute type for each of `shapes`, named fresh from `bases`.
    /// - Returns: the outputs' names.
    func operation(_ type: String, outputs bases: [String], _ inputs: KeyValuePairs<String, String>, shapes: [[Int]]) -> [String] {
        let names = bases.map(freshName)
        append(type, name: names[0], inputs: inputs.map { ($0.key, [binding($0.value)]) },
               outputs: zip(names, shapes).map { spec.milNamed($0, spec.milTensorType(computeType, $1)) })
        return names
    }

    /// A `cast` of `x` to float16 or float32, named `name` as it is (a
    /// reserved output name) or made fresh from `base`.
    @discardableResult
    func cast(_ x: String, toFloat16: Bool, base: String, exactName: Bool = false, shape: [Int]) -> String {
        let name = exactName ? base : freshName(base)
        let dtype = constant(name + "_dtype", .strings([toFloat16 ? "fp16" : "fp32"]))
        append("cast", name: name, inputs: [("x", [binding(x)]), ("dtype", [binding(dtype)])],
               output: spec.milTensorType(toFloat16 ? CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16 : CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT32, shape))
        return name
    }

    /// The binding of an input to the value `name`.
    func binding(_ name: String) -> UnsafeMutablePointer<MILBinding> {
        let binding: UnsafeMutablePointer<MILBinding> = spec.new(core_ml__specification__milspec__argument__binding__init)
        (binding.pointee.binding_case, binding.pointee.name) = (CORE_ML__SPECIFICATION__MILSPEC__ARGUMENT__BINDING__BINDING_NAME, spec.string(name))
        return binding
    }

    /// The binding of an input to an immediate value.
    func binding(_ value: UnsafeMutablePointer<MILValue>) -> UnsafeMutablePointer<MILBinding> {
        let binding: UnsafeMutablePointer<MILBinding> = spec.new(core_ml__specification__milspec__argument__binding__init)
        (binding.pointee.binding_case, binding.pointee.value) = (CORE_ML__SPECIFICATION__MILSPEC__ARGUMENT__BINDING__BINDING_VALUE, value)
        return binding
    }

    /// Appends an operation; its `name` attribute is its (first) output's name, as coremltools writes it.
    func append(_ type: String, name: String, inputs: [(String, [UnsafeMutablePointer<MILBinding>])],
                output: UnsafeMutablePointer<MILValueType>, attributes: [UnsafeMutablePointer<MILValueEntry>] = []) {
        append(type, name: name, inputs: inputs, outputs: [spec.milNamed(name, output)], attributes: attributes)
    }

    func append(_ type: String, name: String, inputs: [(String, [UnsafeMutablePointer<MILBinding>])],
                outputs: [UnsafeMutablePointer<MILNamedValueType>], attributes: [UnsafeMutablePointer<MILValueEntry>] = []) {
        let operation: UnsafeMutablePointer<MILOperation> = spec.new(core_ml__specification__milspec__operation__init)
        operation.pointee.type = spec.string(type)
        setInputs(of: operation, inputs)
        (operation.pointee.n_outputs, operation.pointee.outputs) = spec.array(outputs)
        let nameValue = spec.milValue(.strings([name]), shape: nil)
        (operation.pointee.n_attributes, operation.pointee.attributes) = spec.array(attributes + [spec.milEntry("name", nameValue)])
        operations.append(operation)
    }

    /// Binds `operation`'s inputs (a compressed constant's, once its values are computed).
    func setInputs(of operation: UnsafeMutablePointer<MILOperation>, _ inputs: [(String, [UnsafeMutablePointer<MILBinding>])]) {
        (operation.pointee.n_inputs, operation.pointee.inputs) = spec.array(inputs.map { key, bindings in
            let argument: UnsafeMutablePointer<MILArgument> = spec.new(core_ml__specification__milspec__argument__init)
            (argument.pointee.n_arguments, argument.pointee.arguments) = spec.array(bindings)
            let entry: UnsafeMutablePointer<MILInputEntry> = spec.new(core_ml__specification__milspec__operation__inputs_entry__init)
            (entry.pointee.key, entry.pointee.value) = (spec.string(key), argument)
            return entry
        })
    }
}
