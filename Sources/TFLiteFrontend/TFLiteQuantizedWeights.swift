import ModelFormat

/// Weights stored other than as float32: float16 ones behind a DEQUANTIZE
/// (folded), int8 ones of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED
/// (dynamic-range and full-integer models) kept as Core ML's 8-bit
/// linear-symmetric weights where those hold the same levels and scales
/// (`TFLiteConstants.fitsLinearSymmetric`), else widened to float32.
extension TFLiteWalk {
    /// Folds a DEQUANTIZE of a constant (float16 weights): its readers read
    /// the constant, widened. False for one of an activation (mapped).
    mutating func foldDequantize(_ op: TFLiteModel.Operator) throws -> Bool {
        guard op.inputs.count == 1, op.outputs.count == 1 else { return false }
        let input = try tensor(op.inputs[0], "the input of operator \(op.index) (DEQUANTIZE)")
        let output = try tensor(op.outputs[0], "the output of operator \(op.index) (DEQUANTIZE)")
        guard try file.data(of: input) != nil, ranks[input.index] == nil, output.type == 0 else { return false }
        folded[output.index] = input.index
        return true
    }

    /// The output-channel axis of each weighted operator's kernel (input 1).
    static let kernelOutputAxes = ["CONV_2D": 0, "DEPTHWISE_CONV_2D": 3, "FULLY_CONNECTED": 0]

    /// Marks the kernel of `nodes` (the operator's first node) 8-bit
    /// linear-symmetric when its INT8 levels fit, and counts what was widened.
    mutating func keepInt8Weights(of nodes: inout [Node], op: String, builder: TFLiteBuilder) throws {
        // Float16 and quantized constants (not the int32 and int64 shapes and axes operators read as integers).
        for tensor in builder.inputs.compactMap({ $0 }) where tensor.type == 1 || tensor.isQuantized {
            guard ranks[tensor.index] == nil, let data = try file.data(of: tensor) else { continue }
            let kind = tensor.isQuantized ? "\(TFLiteModel.typeName(tensor.type).lowercased()) quantized" : TFLiteModel.typeName(tensor.type).lowercased()
            if let axis = Self.kernelOutputAxes[op], builder.inputs.count > 1, builder.inputs[1]?.index == tensor.index,
               TFLiteConstants.fitsLinearSymmetric(tensor, data, outputAxis: axis), !nodes.isEmpty {
                switch nodes[0].operation {
                case .convolution(var convolution):
                    convolution.weights.storedPrecision = .quantized(bits: 8, .linearSymmetric)
                    nodes[0].operation = .convolution(convolution)
                    keptInt8 += 1
                    continue
                case .innerProduct(var product):
                    product.weights.storedPrecision = .quantized(bits: 8, .linearSymmetric)
                    nodes[0].operation = .innerProduct(product)
                    keptInt8 += 1
                    continue
                default: break
                }
            }
            widened[kind, default: 0] += 1
        }
    }

    /// What the summary says of the weights, nil for a float32 model.
    var weightNote: String? {
        var parts = widened.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key) tensor\($0.value == 1 ? "" : "s") widened to float32" }
        if keptInt8 > 0 {
            parts.append("\(keptInt8) int8 kernel\(keptInt8 == 1 ? "" : "s") kept 8-bit (Core ML's linear-symmetric weights, the same levels and scales)")
        }
        if !quantizedActivations.isEmpty {
            let counts = quantizedActivations.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: " and ")
            let total = quantizedActivations.values.reduce(0, +)
            parts.append("\(counts) activation\(total == 1 ? "" : "s") computed in float "
                         + "(\(droppedQuantizations) QUANTIZE/DEQUANTIZE dropped)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
