"""A quantized .tflite file's float twin: the same graph with every quantized constant replaced by
its dequantized float32 values ((q - zero point) * scale, per channel along the quantized
dimension), every quantized activation tensor made float32, and QUANTIZE / DEQUANTIZE ops
removed. LiteRT runs it with its float kernels: the int8 file's own weights with float
activations, which is what `coreml-convert tflite` promises for a quantized file."""
import numpy as np

QUANTIZERS = ("QUANTIZE", "DEQUANTIZE")


def float_twin(source, target):
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils
    model = flatbuffer_utils.read_model(str(source))
    kinds = {schema.TensorType.INT8: np.int8, schema.TensorType.UINT8: np.uint8, schema.TensorType.INT16: np.int16,
             schema.TensorType.INT32: np.int32, schema.TensorType.INT64: np.int64}
    names = {value: name for name, value in vars(schema.BuiltinOperator).items() if not name.startswith("_")}
    for graph in model.subgraphs:
        for tensor in graph.tensors:
            quantization = tensor.quantization
            if tensor.type not in kinds or quantization is None or quantization.scale is None or len(quantization.scale) == 0:
                continue
            buffer = model.buffers[tensor.buffer]
            if buffer.data is not None and len(buffer.data) > 0:
                values = np.frombuffer(bytes(bytearray(buffer.data)), kinds[tensor.type]).astype(np.float64).reshape(tensor.shape)
                scale, zero = np.asarray(quantization.scale, np.float64), np.asarray(quantization.zeroPoint, np.float64)
                if scale.size > 1:
                    shape = [1] * values.ndim
                    shape[quantization.quantizedDimension] = scale.size
                    scale, zero = scale.reshape(shape), zero.reshape(shape)
                # A buffer of its own: the converter shares one between constants of equal bytes, whatever their scales.
                dequantized = schema.BufferT()
                dequantized.data = np.frombuffer(((values - zero) * scale).astype(np.float32).tobytes(), np.uint8)
                model.buffers.append(dequantized)
                tensor.buffer = len(model.buffers) - 1
            tensor.type, tensor.quantization = schema.TensorType.FLOAT32, None
        kept = []
        for op in graph.operators:
            code = model.operatorCodes[op.opcodeIndex]
            name = names.get(max(code.builtinCode, code.deprecatedBuiltinCode))
            if name not in QUANTIZERS:
                kept.append(op)
                continue
            source_tensor, removed = op.inputs[0], op.outputs[0]
            for other in graph.operators:
                if other.inputs is not None:
                    other.inputs = [source_tensor if index == removed else index for index in other.inputs]
            graph.outputs = [source_tensor if index == removed else index for index in graph.outputs]
        graph.operators = kept
    flatbuffer_utils.write_model(model, str(target))
