import ModelFormat
import CoreMLSchema
import Protobuf

/// A weights field that Core ML reads quantized (in convolution, inner
/// product, batch norm, scale, bias and load-constant layers): how many
/// values the layer's sizes call for (nil when their product overflows),
/// and how they split into channels.
struct QuantizableField {
    var count: Int?
    var channels: ChannelLayout

    /// One channel of `count` values.
    static func whole(_ count: Int?) -> QuantizableField { QuantizableField(count: count, channels: .whole(count ?? 0)) }
}

/// Reads `WeightParams`: float32 values borrowed from the file, float16
/// ones widened, quantized ones expanded to float32 (`Quantizer`); each
/// tensor remembers how it was stored (`Weights.storedPrecision`).
extension SpecReader {
    /// Float values of a repeated float field: borrowed from the file, or
    /// unloaded (count only) after a structure-only decode.
    func floats(_ pointer: UnsafeMutablePointer<Float>?, _ count: Int) -> Weights {
        guard count > 0 else { return Weights([]) }
        guard let pointer else { return Weights(unloadedCount: count) }
        return Weights(borrowing: UnsafeBufferPointer(start: pointer, count: count), owner: decoded)
    }

    /// A layer's weights; `quantizable` for a field that may be stored
    /// quantized (else such a field is refused, as Core ML refuses it).
    func weights(_ params: UnsafeMutablePointer<MLWeights>?, _ what: String, of layer: String,
                 quantizable: QuantizableField? = nil) throws -> Weights {
        guard let params else { throw fail("layer '\(layer)' has no \(what)", at: nil) }
        let half = params.pointee.float16value
        let forms = [params.pointee.n_floatvalue > 0, half.len > 0, params.pointee.rawvalue.len > 0 || params.pointee.quantization != nil]
        guard forms.filter({ $0 }).count <= 1 else {
            throw fail("layer '\(layer)': \(what) are stored in more than one form (float32, float16, quantized)", at: params)
        }
        if params.pointee.n_floatvalue > 0 { return floats(params.pointee.floatvalue, params.pointee.n_floatvalue) }
        if forms[2] {
            guard let quantizable else {
                throw fail("layer '\(layer)': \(what) are quantized, which this toolkit reads only in convolution, inner product, "
                           + "batch norm, scale, bias and load-constant layers", at: params)
            }
            return try dequantized(params, what, of: layer, quantizable)
        }
        guard half.len > 0 else { return Weights([]) }
        guard half.len % 2 == 0 else { throw fail("layer '\(layer)': float16 \(what) has an odd byte count \(half.len)", at: params) }
        var widened: Weights
        if let data = half.data {
            let raw = UnsafeRawPointer(data)
            widened = Weights(count: half.len / 2) { target in  // widened straight into the weights' memory
                for index in target.indices { target[index] = Float(halfBits: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self))) }
            }
        } else {
            widened = Weights(unloadedCount: half.len / 2)
        }
        widened.storedPrecision = .float16
        return widened
    }

    /// A shape field and the tensor of that shape (scale, bias and
    /// load-constant layers), which Core ML may hold quantized with one scale.
    func shaped(_ dimensions: UnsafeMutablePointer<UInt64>?, _ count: Int, _ params: UnsafeMutablePointer<MLWeights>?, _ what: String,
                of layer: String) throws -> (shape: [Int], values: Weights) {
        let shape = try counts(dimensions, count, layer)
        return (shape, try weights(params, what, of: layer, quantizable: .whole(shape.checkedProduct)))
    }

    /// Optional weights: present only when the layer says so.
    func optionalWeights(_ present: Int32, _ params: UnsafeMutablePointer<MLWeights>?, _ what: String,
                         of layer: String, quantizable: QuantizableField? = nil) throws -> Weights? {
        present != 0 ? try weights(params, what, of: layer, quantizable: quantizable) : nil
    }

    /// Quantized weights as float32, checked as Core ML's validator checks
    /// them: 1 to 8 bits, enough bytes for the layer's count, a linear
    /// scale of one entry or one per channel (a bias of none or as many),
    /// a table of 2^bits entries.
    private func dequantized(_ params: UnsafeMutablePointer<MLWeights>, _ what: String, of layer: String,
                             _ field: QuantizableField) throws -> Weights {
        let raw = params.pointee.rawvalue
        guard let quantization = params.pointee.quantization?.pointee else {
            throw fail("layer '\(layer)': \(what) hold raw values without quantization parameters", at: params)
        }
        let bits = Int(clamping: quantization.numberofbits)
        guard (1...8).contains(bits) else { throw fail("layer '\(layer)': \(what) are quantized to \(quantization.numberofbits) bits, not 1 to 8", at: params) }
        guard let count = field.count, count <= TensorShape.maximumCount, count.multipliedReportingOverflow(by: bits).partialValue <= raw.len * 8 else {
            throw fail("layer '\(layer)': \(what) hold \(raw.len) bytes, too few for the layer's \(field.count.map(String.init) ?? "overflowing count of") "
                       + "values at \(bits) bits", at: params)
        }
        // Counts only here: after a structure-only decode the arrays are not loaded.
        let mode: QuantizationMode, mapping: () -> QuantizationMapping
        switch quantization.quantization_type_case {
        case CORE_ML__SPECIFICATION__QUANTIZATION_PARAMS__QUANTIZATION_TYPE_LINEAR_QUANTIZATION:
            let linear = quantization.linearquantization.pointee
            guard linear.n_scale == 1 || linear.n_scale == field.channels.channels, linear.n_bias == 0 || linear.n_bias == linear.n_scale else {
                throw fail("layer '\(layer)': \(what) have \(linear.n_scale) linear scales and \(linear.n_bias) biases; "
                           + "expected 1 or \(field.channels.channels), and as many biases or none", at: params)
            }
            mode = .linear
            mapping = { .linear(scale: CArrays.array(linear.scale, linear.n_scale), bias: CArrays.array(linear.bias, linear.n_bias)) }
        case CORE_ML__SPECIFICATION__QUANTIZATION_PARAMS__QUANTIZATION_TYPE_LOOKUP_TABLE_QUANTIZATION:
            let table = quantization.lookuptablequantization.pointee
            guard table.n_floatvalue == 1 << bits else {
                throw fail("layer '\(layer)': \(what) have a lookup table of \(table.n_floatvalue) entries; \(bits) bits need \(1 << bits)", at: params)
            }
            mode = .kmeansLookupTable
            mapping = { .lookupTable(CArrays.array(table.floatvalue, table.n_floatvalue)) }
        default:
            throw fail("layer '\(layer)': \(what) are quantized, but neither linearly nor by a lookup table", at: params)
        }
        var values: Weights
        if let data = raw.data {
            let (packed, mapping) = (UnsafeRawBufferPointer(start: data, count: raw.len), mapping())
            values = Weights(count: count) { Quantizer.dequantize(packed, count: count, bits: bits, mapping: mapping, layout: field.channels, into: $0) }
        } else {
            values = Weights(unloadedCount: count)
        }
        values.storedPrecision = .quantized(bits: bits, mode)
        return values
    }
}
