import CoreMLSchema
import ModelFormat
import Naming
import Protobuf

/// The Model message of an ML Program: specification version 6 (iOS 15)
/// or 7 (iOS 16, `ProgramOptions`), the description, and a program of one
/// function `main` in the CoreML5 (or CoreML6) opset: image preprocessing, the lowered nodes, and for a classifier
/// coremltools' `classify` operation making the two classifier features.
/// Computing in float16, the inputs and outputs stay float32 as
/// coremltools writes them for iOS 15: a `cast` to float16 follows each
/// input, and one to float32 makes each output and `classify`'s
/// probabilities (which its definition takes in float32 only).
extension SpecBuilder {
    func mlProgram(_ model: Model, shapes: [String: TensorShape], options: ProgramOptions) throws -> (UnsafeMutablePointer<MLModel>, BlobFile) {
        let program = ProgramBuilder(spec: self, options: options)
        let float16 = options.float16
        var interface = model.inputs.map(\.name) + model.outputs.map(\.name)
        if let classifier = model.classifier { interface += [classifier.predictedFeatureName, classifier.probabilitiesName] }
        for name in interface {
            guard ProgramBuilder.isIdentifier(name) else {
                throw ModelError("feature '\(name)': \(option: .convertTo) names features with letters, digits and '_' only (not starting with a digit)")
            }
            program.reserve(name)
        }
        var lowering = ProgramLowering(program: program, shapes: shapes)
        lowering.tensorModel = model.hasTensorInputs
        // The reader tells a map model by its inputs' `<input>_map` reshapes: no operation of a tensor model takes that name.
        if model.hasTensorInputs { for input in model.inputs { program.reserve(input.name + "_map") } }
        for input in model.inputs { program.reserve(input.name + "_tensor") }
        let functionInputs = try model.inputs.map { input in
            let float32 = CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT32
            switch input.kind {
            case .image(let image):
                let shape = [1, image.channels, image.height, image.width]
                var value = input.name
                if image.asTensor {
                    // The reader tells a tensor model whose inputs are images by this `<input>_tensor` identity (ProgramRaising.isTensorProgram).
                    value = input.name + "_tensor"
                    program.append("identity", name: value, inputs: [("x", [program.binding(input.name)])],
                                   output: milTensorType(float32, shape))
                }
                if float16 { value = program.cast(value, toFloat16: true, base: input.name + "_to_fp16", shape: shape) }
                lowering.values[input.name] = preprocess(input.name, value, image, shape: shape, program)
                return milNamed(input.name, milTensorType(float32, shape))
            case .tensor(let shape):
                // The tensor as it is: the program's shapes are the model's.
                lowering.values[input.name] = float16 ? program.cast(input.name, toFloat16: true, base: input.name + "_to_fp16", shape: shape) : input.name
                return milNamed(input.name, milTensorType(float32, shape))
            case .array(let shape):
                guard !model.hasTensorInputs else { throw ModelError("input '\(input.name)': a model with tensor inputs takes only tensor inputs") }
                // The array as the NeuralNetwork file takes it ([C] or [C, H, W]), made a map for the program.
                let map = lowering.shape(of: input.name)
                let value = float16 ? program.cast(input.name, toFloat16: true, base: input.name + "_to_fp16", shape: shape) : input.name
                lowering.values[input.name] = program.operation("reshape", input.name + "_map", [
                    "x": value, "shape": program.constant(input.name + "_map_shape", .ints(map.map { Int32($0) }), shape: [4]),
                ], shape: map)
                return milNamed(input.name, milTensorType(float32, shape))
            }
        }
        for node in model.nodes { try lowering.lower(node) }
        if let constant = program.overflowingConstant { throw HalfRounding.overflowError(constant: constant) }
        program.compressPending()
        if let failure = program.compressionFailure { throw ModelError(failure) }

        var blockOutputs: [String] = []
        if let classifier = model.classifier {
            blockOutputs += classify(classifier, probabilities: lowering.values[classifier.probabilitiesName] ?? classifier.probabilitiesName,
                                     shape: lowering.shape(of: classifier.probabilitiesName), program)
        }
        var described = model
        for (index, output) in model.outputs.enumerated() {
            // Each output as the NeuralNetwork file gives it: [F] or [C, H, W], a tensor model's as it is; a detector's
            // [1, N, C] rows as the suppression reads them, [N, C] (`programDetector`).
            let tensor = shapes[output.name] ?? TensorShape([1])
            let rows = model.detector != nil
            let shape = rows ? Array(tensor.dimensions.dropFirst()) : model.hasTensorInputs ? tensor.dimensions : tensor.featureShape
            described.outputs[index].shape = shape
            let source = lowering.values[output.name] ?? output.name
            if model.hasTensorInputs && !rows {
                // Named as the output: a cast to float32, or the same values.
                if float16 {
                    program.cast(source, toFloat16: false, base: output.name, exactName: true, shape: shape)
                } else {
                    program.append("identity", name: output.name, inputs: [("x", [program.binding(source)])],
                                   output: milTensorType(CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT32, shape))
                }
                blockOutputs.append(output.name)
                continue
            }
            let shapeConstant = program.constant(output.name + "_shape", .ints(shape.map { Int32($0) }), shape: [shape.count])
            if float16 {
                let reshaped = program.operation("reshape", output.name + "_fp16", ["x": source, "shape": shapeConstant], shape: shape)
                program.cast(reshaped, toFloat16: false, base: output.name, exactName: true, shape: shape)
            } else {
                program.append("reshape", name: output.name, inputs: [("x", [program.binding(source)]), ("shape", [program.binding(shapeConstant)])],
                               output: milTensorType(CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT32, shape))
            }
            blockOutputs.append(output.name)
        }

        let block: UnsafeMutablePointer<MILBlock> = new(core_ml__specification__milspec__block__init)
        (block.pointee.n_outputs, block.pointee.outputs) = strings(blockOutputs)
        (block.pointee.n_operations, block.pointee.operations) = array(program.operations)
        let blockEntry: UnsafeMutablePointer<MILBlockEntry> = new(core_ml__specification__milspec__function__block_entry__init)
        (blockEntry.pointee.key, blockEntry.pointee.value) = (string(options.opset), block)
        let function: UnsafeMutablePointer<MILFunction> = new(core_ml__specification__milspec__function__init)
        (function.pointee.n_inputs, function.pointee.inputs) = array(functionInputs)
        function.pointee.opset = string(options.opset)
        (function.pointee.n_block_specializations, function.pointee.block_specializations) = array([blockEntry])
        let functionEntry: UnsafeMutablePointer<MILFunctionEntry> = new(core_ml__specification__milspec__program__functions_entry__init)
        (functionEntry.pointee.key, functionEntry.pointee.value) = (string("main"), function)
        let milProgram: UnsafeMutablePointer<MILProgram> = new(core_ml__specification__milspec__program__init)
        milProgram.pointee.version = 1
        (milProgram.pointee.n_functions, milProgram.pointee.functions) = array([functionEntry])

        let spec: UnsafeMutablePointer<MLModel> = new(core_ml__specification__model__init)
        spec.pointee.specificationversion = options.specificationVersion
        spec.pointee.description = modelDescription(described)
        markFloat32(spec.pointee.description)
        spec.pointee.type_case = CORE_ML__SPECIFICATION__MODEL__TYPE_ML_PROGRAM
        spec.pointee.mlprogram = milProgram
        return (spec, program.blobs)
    }

    /// Core ML's image scaler as coremltools writes it for a program:
    /// `mul` by the scale, then `add` of the per-channel biases, each only
    /// when it changes something.
    private func preprocess(_ name: String, _ input: String, _ image: ImageInput, shape: [Int], _ program: ProgramBuilder) -> String {
        var value = input
        if image.scale != 1 {
            value = program.operation("mul", name + "_scaled", ["x": value, "y": program.constant(name + "_scale", .floats([image.scale]))], shape: shape)
        }
        let biases = image.channelBiases
        if biases.contains(where: { $0 != 0 }) {
            value = program.operation("add", name + "_biased", ["x": value, "y": program.constant(name + "_bias", .floats(biases), shape: [1, biases.count, 1, 1])],
                                      shape: shape)
        }
        if let mean = image.meanImage {
            // y -= mean, as an add of its negation (exact): the reader takes `add`s of an image input as its preprocessing.
            value = program.operation("add", name + "_mean_subtracted", [
                "x": value, "y": program.constant(name + "_mean", Weights(mean.values.map { -$0 }), shape: shape),
            ], shape: shape)
        }
        return value
    }

    /// The `classify` operation over the probabilities, flattened to
    /// `[1, N]` as coremltools passes them: the top label and the label ->
    /// probability dictionary (float64 values), named as the classifier's features.
    private func classify(_ classifier: Classifier, probabilities: String, shape: [Int], _ program: ProgramBuilder) -> [String] {
        let count = shape.reduce(1, *)
        var flat = program.operation("reshape", probabilities + "_flat", [
            "x": probabilities, "shape": program.constant(probabilities + "_flat_shape", .ints([1, Int32(count)]), shape: [2]),
        ], shape: [1, count])
        if program.float16 { flat = program.cast(flat, toFloat16: false, base: probabilities + "_fp32", shape: [1, count]) }
        let classes: [MILData]
        let labelType: MILDataType
        switch classifier.labels {
        case .strings(let labels):
            classes = labels.map { .strings([$0]) }
            labelType = CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__STRING
        case .integers(let labels):
            classes = labels.map { .longInts([$0]) }
            labelType = CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__INT64
        }
        let dictionary = milDictionaryType(milTensorType(labelType, nil), milTensorType(CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT64, nil))
        program.append("classify", name: classifier.predictedFeatureName,
                       inputs: [("probabilities", [program.binding(flat)]), ("classes", [program.binding(milList(classes))])],
                       outputs: [milNamed(classifier.predictedFeatureName, milTensorType(labelType, nil)),
                                 milNamed(classifier.probabilitiesName, dictionary)])
        return [classifier.probabilitiesName, classifier.predictedFeatureName]
    }

    /// A program's array inputs and outputs are float32 arrays, as its
    /// function's inputs and outputs are (coremltools writes the same; a
    /// NeuralNetwork's are written as doubles).
    private func markFloat32(_ description: UnsafeMutablePointer<MLModelDescription>?) {
        guard let description else { return }
        let features = Array(CArrays.buffer(description.pointee.input, description.pointee.n_input))
            + Array(CArrays.buffer(description.pointee.output, description.pointee.n_output))
        for case let feature? in features {
            guard let type = feature.pointee.type, type.pointee.type_case == CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_MULTI_ARRAY_TYPE else { continue }
            type.pointee.multiarraytype.pointee.datatype = CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__ARRAY_DATA_TYPE__FLOAT32
        }
    }
}
