"""Checks an ML Program package this toolkit wrote, with readers that are not ours.

Usage: check_mlprogram.py PACKAGE BLOB_DUMP [REFERENCE.mlmodel] [--weight-stats STATS.json]
       check_mlprogram.py --each LIST   (each line of LIST: PACKAGE BLOB_DUMP; coremltools loaded once,
                                         one line per package, exit 1 when any failed)

1. coremltools 9 opens the package (MLModel(path, skip_model_load=True)):
   its manifest, the Model message (specification version >= 6, mlProgram).
   A detector's root model is a pipeline: the program, then non-maximum
   suppression, every model at specification 6 or later and the rows the
   suppression reads float32 arrays (`detector_program`); the checks below
   then take the program's Model.
2. coremltools' MIL-proto loader (frontend/milproto/load.py, `load`) builds
   its own program from the Model: every operation is made by its op
   definition, so its input types are checked and its type inference runs.
   Each output's data type and shape must equal what the file declares, and
   the function's inputs and block's outputs must be the description's.
3. BLOB_DUMP is what Core ML's own MIL blob reader (MILBlob::StorageReader,
   scripts/verify/milblob_dump.cpp) read from weight.bin: every constant the
   program stores in the file must be a blob of its data type (float32, or
   float16 for a program computing in float16; a compressed constant's
   uint8, int8 or iOS 18's sub-byte int4, uint1-uint6) at its offset holding
   exactly the values coremltools loaded, and no blob may be unreferenced;
   coremltools' own blob writer (libmilstoragepython) given the same arrays
   in order writes the same bytes.
4. With REFERENCE (the NeuralNetwork .mlmodel of the same conversion, a
   writer checked by scripts/check_mlmodels.py), each convolution,
   inner-product, batch-norm, scale and bias weight of the program must be
   bit-identical to the layer's in the reference; in a float16 program, to
   the reference's cast as coremltools' FP16ComputePrecision pass casts a
   constant (numpy's float16 rounding; finite values of 1e38 or more
   saturated to +-65504; in constants of fewer than 400 values a non-zero
   value rounding to zero made the smallest subnormal of its sign).
5. With --weight-stats (coreml-inspect PACKAGE --weight-stats --json), each
   compressed constant (iOS 16's constexpr_affine_dequantize,
   constexpr_lut_to_dense; iOS 18's constexpr_blockwise_shift_scale and
   constexpr_lut_to_dense) decompressed by coremltools' op definition must be
   what this toolkit's reader read: count, min and max exactly, mean and
   standard deviation to 1e-6 of the largest magnitude. (These do not see a
   permutation of the values, such as a wrong bit order of packed indices:
   run_mlprogram_torch.py's run of the decompressed program does.)
Prints one line per check; exits 1 on the first failure.
"""
import sys

import numpy as np
import coremltools as ct
from coremltools.converters.mil.frontend.milproto.load import load as milproto_to_pymil
from coremltools.converters.mil.mil import types


class CheckFailed(Exception):
    pass


def fail(message):
    raise CheckFailed(message)


def declared_outputs(spec):
    """name -> (MIL data type number, shape tuple) of every tensor an operation declares."""
    function = spec.mlProgram.functions["main"]
    block = function.block_specializations[function.opset]
    declared = {}
    for op in block.operations:
        for output in op.outputs:
            if output.type.WhichOneof("type") == "tensorType":
                tensor = output.type.tensorType
                declared[output.name] = (tensor.dataType, tuple(d.constant.size for d in tensor.dimensions), op.type)
    return function, block, declared


MIL_DTYPES = {10: types.fp16, 11: types.fp32, 23: types.int32, 2: types.str, 1: types.bool, 24: types.int64, 12: types.fp64}
# MILBlob's BlobDataType numbers: the names coremltools' blob writer's methods take, the bits of the sub-byte ones,
# and the blob type and numpy values of each MIL type a blob holds (coremltools keeps sub-byte values unpacked).
BLOB_NAMES = {1: "fp16", 2: "float", 3: "uint8", 4: "int8", 8: "int4", 9: "uint1", 10: "uint2", 11: "uint4", 12: "uint3", 13: "uint6"}
SUB_BYTE = {8: 4, 9: 1, 10: 2, 11: 4, 12: 3, 13: 6}
BLOB_KINDS = {types.fp16: (1, np.float16), types.fp32: (2, np.float32), types.uint8: (3, np.uint8), types.int8: (4, np.int8),
              types.int4: (8, np.int8), types.uint1: (9, np.uint8), types.uint2: (10, np.uint8), types.uint4: (11, np.uint8),
              types.uint3: (12, np.uint8), types.uint6: (13, np.uint8)}


def detector_program(package, spec):
    """A detector's pipeline (the program, then non-maximum suppression): its structure as the
    NeuralNetwork file's, every model at specification 6 or later, the rows float32 arrays the
    suppression takes as the program gives them. Returns the program's Model."""
    models = spec.pipeline.models
    kinds = [m.WhichOneof("Type") for m in models]
    if kinds != ["mlProgram", "nonMaximumSuppression"]:
        fail(f"{package}: a pipeline of {kinds}, not a detector's [mlProgram, nonMaximumSuppression]")
    versions = [spec.specificationVersion] + [m.specificationVersion for m in models]
    if min(versions) < 6:
        fail(f"{package}: specification versions {versions} (pipeline, program, suppression); a program needs 6")
    program, nms = models
    rows = [f.name for f in program.description.output]
    nms_inputs = [f.name for f in nms.description.input]
    if rows != nms_inputs or [nms.nonMaximumSuppression.confidenceInputFeatureName, nms.nonMaximumSuppression.coordinatesInputFeatureName] != rows:
        fail(f"{package}: the program's outputs {rows} are not the suppression's inputs {nms_inputs}")
    for feature in list(program.description.output) + list(nms.description.input) + list(nms.description.output) + list(spec.description.output):
        if feature.type.multiArrayType.dataType != ct.proto.FeatureTypes_pb2.ArrayFeatureType.FLOAT32:
            fail(f"{package}: {feature.name} is not a float32 array")
    optional = [f.name for f in spec.description.input if f.type.isOptional]
    print(f"coremltools {ct.__version__} opened {package}: a pipeline of {kinds} at specification {versions}, "
          f"rows {rows} float32, optional inputs {optional}, {len(nms.nonMaximumSuppression.stringClassLabels.vector) or len(nms.nonMaximumSuppression.int64ClassLabels.vector)} labels")
    return program


def main():
    if sys.argv[1] == "--each":
        return check_each(sys.argv[2])
    arguments = sys.argv[1:]
    stats = None
    if "--weight-stats" in arguments:
        at = arguments.index("--weight-stats")
        stats = arguments[at + 1]
        del arguments[at:at + 2]
    try:
        check(arguments[0], arguments[1], arguments[2] if len(arguments) > 2 else None, stats)
    except CheckFailed as failure:
        print(f"check_mlprogram: FAIL {failure}")
        sys.exit(1)


def check_each(list_path):
    """Every package of the list, its lines (what check prints) kept quiet unless it fails."""
    import contextlib
    import io
    failed = 0
    with open(list_path) as listing:
        pairs = [line.split() for line in listing if line.strip()]
    for package, dump_path in pairs:
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                check(package, dump_path, None)
            operations = next((line for line in printed.getvalue().splitlines() if line.startswith("milproto loader")), "")
            print(f"ok {package}: {operations.split('; ')[0].replace('milproto loader: ', '')}")
        except Exception as failure:  # a crash of coremltools' loader counts as a failure of the package
            failed += 1
            print(f"FAIL {package}: {type(failure).__name__}: {failure}")
    print(f"check_mlprogram: {len(pairs) - failed} of {len(pairs)} packages passed")
    sys.exit(1 if failed else 0)


def check(package, dump_path, reference, weight_stats=None):
    model = ct.models.MLModel(package, skip_model_load=True)
    spec = model.get_spec()
    if spec.WhichOneof("Type") == "pipeline":
        spec = detector_program(package, spec)
    if spec.WhichOneof("Type") != "mlProgram" or spec.specificationVersion < 6:
        fail(f"{package}: not an ML program of specification 6 or later ({spec.WhichOneof('Type')}, {spec.specificationVersion})")
    print(f"coremltools {ct.__version__} opened {package}: specification {spec.specificationVersion}, mlProgram")

    program = milproto_to_pymil(spec, spec.specificationVersion, model.weights_dir)
    main_function = program.functions["main"]
    function, block, declared = declared_outputs(spec)
    inferred = {}
    for op in main_function.operations:
        for var in op.outputs:
            inferred[var.name] = var
    checked = 0
    for name, (dtype, shape, op_type) in declared.items():
        var = inferred.get(name)
        if var is None:
            fail(f"{name} ({op_type}) is not in coremltools' program")
        if MIL_DTYPES.get(dtype) is not None and var.dtype != MIL_DTYPES[dtype]:
            fail(f"{name} ({op_type}): declared {types.builtin_to_string(MIL_DTYPES[dtype])}, inferred {types.builtin_to_string(var.dtype)}")
        inferred_shape = tuple(var.shape) if var.shape is not None else ()
        if inferred_shape != shape:
            fail(f"{name} ({op_type}): declared shape {shape}, type inference gives {inferred_shape}")
        checked += 1
    op_types = sorted({op.op_type for op in main_function.operations})
    print(f"milproto loader: {len(main_function.operations)} operations built with type inference; "
          f"{checked} declared output types and shapes match ({', '.join(op_types)})")

    description_inputs = [feature.name for feature in spec.description.input]
    description_outputs = sorted(feature.name for feature in spec.description.output)
    if [value.name for value in function.inputs] != description_inputs:
        fail(f"function inputs {[v.name for v in function.inputs]} are not the description's {description_inputs}")
    if sorted(block.outputs) != description_outputs:
        fail(f"block outputs {list(block.outputs)} are not the description's {description_outputs}")
    print(f"interface: inputs {description_inputs}, outputs {description_outputs}")

    blobs = {}
    with open(dump_path) as dump:
        for line in dump:
            fields = line.split()
            offset, dtype, _, size = (int(f) for f in fields[:4])
            if dtype in (3, 4):  # uint8, int8: bytes in hexadecimal
                values = np.array([int(v, 16) for v in fields[4:]], dtype=np.uint8).view(np.uint8 if dtype == 3 else np.int8)
            elif dtype in SUB_BYTE:  # iOS 18's sub-byte integers, in decimal
                values = np.array([int(v) for v in fields[4:]], dtype=np.int8 if dtype == 8 else np.uint8)
            else:
                width = np.uint16 if dtype == 1 else np.uint32
                values = np.array([int(v, 16) for v in fields[4:]], dtype=width).view(np.float16 if dtype == 1 else np.float32)
            blobs[offset] = (dtype, size, values)
    referenced, offsets = {}, {}
    pymil_ops = {op.outputs[0].name: op for op in main_function.operations}
    for op in block.operations:
        if op.type != "const" and not op.type.startswith("constexpr_"):
            continue
        # iOS 16's compressed constants hold their parameters as attributes, iOS 18's bind them to inputs.
        bound = [(key, argument.arguments[0].value) for key, argument in op.inputs.items()
                 if len(argument.arguments) == 1 and argument.arguments[0].WhichOneof("binding") == "value"]
        for key, value in list(op.attributes.items()) + bound:
            if value.WhichOneof("value") != "blobFileValue":
                continue
            name = op.outputs[0].name
            # A const's value is its output; a compressed constant's parameters (iOS 16: its attributes) are its inputs.
            var = inferred[name] if op.type == "const" else pymil_ops[name].inputs[key]
            if op.type != "const":
                name = f"{name}.{key}"
            offset = value.blobFileValue.offset
            if offset not in blobs:
                fail(f"{name}: no blob at offset {offset} for Core ML's blob reader")
            dtype, size, values = blobs[offset]
            kind = BLOB_KINDS.get(var.dtype)
            if kind is None:
                fail(f"{name}: a blob of {types.builtin_to_string(var.dtype)}, not float16, float32 or an integer of 8 bits or fewer")
            loaded = np.asarray(var.val).astype(kind[1]).ravel()
            bits = SUB_BYTE.get(kind[0], 8 * loaded.itemsize)
            if dtype != kind[0] or size != (loaded.size * bits + 7) // 8:
                fail(f"{name}: blob at {offset} has type {dtype} and {size} bytes, expected type {kind[0]} and {(loaded.size * bits + 7) // 8}")
            if values.tobytes() != loaded.tobytes():
                fail(f"{name}: the values Core ML's blob reader reads differ from coremltools'")
            referenced[name] = (kind[0], values)
            offsets[name] = offset
    referenced = dict(sorted(referenced.items(), key=lambda item: offsets[item[0]]))  # in file order, for the writer
    if len(referenced) != len(blobs):
        fail(f"weight.bin holds {len(blobs)} blobs, the program refers to {len(referenced)}")
    kinds = sorted({BLOB_NAMES[kind] for kind, _ in referenced.values()})
    print(f"MILBlob reader: {len(blobs)} {'/'.join(kinds)} blobs, each read back identical to the program's constant "
          f"({sum(v.size for _, v in referenced.values())} values)")
    same_bytes_as_coremltools(package, model.weights_dir, referenced)
    if weight_stats:
        compare_decompressed(weight_stats, main_function)

    if reference:
        compare_with_reference(reference, block, inferred)


def same_bytes_as_coremltools(package, weights_dir, referenced):
    """coremltools' own blob writer (libmilstoragepython, Core ML's StorageWriter) given the same
    arrays in file order must write the same bytes as weight.bin."""
    import os
    import tempfile
    from coremltools.libmilstoragepython import _BlobStorageWriter

    ours_path = os.path.join(weights_dir, "weight.bin")
    with tempfile.TemporaryDirectory() as folder:
        theirs_path = os.path.join(folder, "weight.bin")
        writer = _BlobStorageWriter(theirs_path)
        for kind, values in referenced.values():
            if kind == 1:
                writer.write_fp16_data(np.ascontiguousarray(values).view(np.uint16))
            elif kind == 2:
                writer.write_float_data(np.ascontiguousarray(values, dtype=np.float32))
            else:  # an integer type: the writer's method of its name, given the unpacked values
                getattr(writer, f"write_{BLOB_NAMES[kind]}_data")(np.ascontiguousarray(values))
        del writer
        with open(ours_path, "rb") as ours, open(theirs_path, "rb") as theirs:
            ours_bytes, theirs_bytes = ours.read(), theirs.read()
    if ours_bytes != theirs_bytes:
        first = next((i for i, (a, b) in enumerate(zip(ours_bytes, theirs_bytes)) if a != b), min(len(ours_bytes), len(theirs_bytes)))
        fail(f"{ours_path} ({len(ours_bytes)} bytes) differs from coremltools' writer's ({len(theirs_bytes)} bytes) at byte {first}")
    print(f"coremltools' blob writer, given the same arrays, writes the same {len(ours_bytes)} bytes as weight.bin")


def compare_decompressed(stats_path, function):
    """Each compressed constant as coremltools decompresses it (its op definition's materialized_val_inference) against
    what this toolkit's reader decompressed it to: coreml-inspect --weight-stats --json's count, min and max exactly,
    mean and standard deviation to 1e-6 of the largest magnitude. Matched by count, min and max (the statistics name
    layers, the program its constants)."""
    import json
    with open(stats_path) as file:
        ours = [w for w in json.load(file)["weights"] if "bit" in w["precision"]]
    compressed = [op for op in function.operations if op.op_type.startswith("constexpr_")]
    if len(compressed) != len(ours):
        fail(f"{len(compressed)} compressed constants in the program, the reader reports {len(ours)} quantized weights")
    for op in compressed:
        values = np.asarray(op.materialized_val_inference(), dtype=np.float64).ravel()
        low, high = np.float32(values.min()), np.float32(values.max())
        # The statistics print each float32 in its shortest round-trip text: read back as float32, exactly.
        match = next((w for w in ours if w["count"] == values.size and np.float32(w["min"]) == low and np.float32(w["max"]) == high), None)
        if match is None:
            fail(f"{op.outputs[0].name} ({op.op_type}): no weight the reader decompressed has its {values.size} values from {low} to {high}")
        ours.remove(match)
        scale = max(1e-30, abs(float(low)), abs(float(high)))
        if abs(match["mean"] - values.mean()) > 1e-6 * scale or abs(match["std"] - values.std()) > 1e-6 * scale:
            fail(f"{op.outputs[0].name}: mean {match['mean']} and std {match['std']} as read, coremltools' {values.mean()} and {values.std()}")
    print(f"decompressed: {len(compressed)} compressed constants read as coremltools decompresses them "
          f"({', '.join(sorted({op.op_type for op in compressed}))})")


def reference_weights(path):
    """(layer name, field) -> float32 values of the NeuralNetwork file's weights."""
    spec = ct.utils.load_spec(path)
    if spec.WhichOneof("Type") == "pipeline":
        spec = spec.pipeline.models[0]
    network = getattr(spec, spec.WhichOneof("Type"))
    weights = {}

    def put(name, field, params):
        if len(params.floatValue):
            weights[(name, field)] = np.array(params.floatValue, dtype=np.float32)

    for layer in network.layers:
        kind = layer.WhichOneof("layer")
        params = getattr(layer, kind)
        if kind in ("convolution", "innerProduct"):
            put(layer.name, "weight", params.weights)
            if params.hasBias:
                put(layer.name, "bias", params.bias)
        elif kind == "batchnorm":
            for field in ("mean", "variance", "gamma", "beta"):
                put(layer.name, field, getattr(params, field))
        elif kind == "scale":
            put(layer.name, "scale", params.scale)
            if params.hasBias:
                put(layer.name, "bias", params.bias)
        elif kind == "bias":
            put(layer.name, "bias", params.bias)
    return weights


def cast_fp16(values):
    """A float32 constant as coremltools' FP16ComputePrecision pass casts it (passes/defs/quantization.py)."""
    half = values.astype(np.float16)
    saturated = np.isfinite(values) & np.isinf(half)
    half[saturated & (values > 0)] = np.float16(65504)
    half[saturated & (values < 0)] = np.float16(-65504)
    if values.size < 400:
        tiny = np.nextafter(np.float16(0), np.float16(1))
        lost = (values != 0) & (np.abs(half) <= tiny)
        half[lost] = np.where(values[lost] > 0, tiny, -tiny)
    return half


def mil_identifier(name):
    """A layer's name as the writer names its constants in the program: a MIL identifier ([A-Za-z_][A-Za-z0-9_]*),
    every other character made '_' and a leading digit given a '_' before it (ProgramBuilder.freshName)."""
    cleaned = "".join(c if (c.isascii() and (c.isalnum() or c == "_")) else "_" for c in name)
    return "_" + cleaned if not cleaned or cleaned[0].isdigit() else cleaned


LAYER_NORM_FIELDS = {"scale": "gamma", "bias": "beta"}


def compare_with_reference(path, block, inferred):
    weights = reference_weights(path)
    compared, halves = 0, 0
    layer_norm_axes = {op.inputs["axes"].arguments[0].name for op in block.operations if op.type == "layer_norm"}
    for (layer, field), expected in weights.items():
        name = mil_identifier(f"{layer}_{field}")
        var = inferred.get(name)
        if var is None and field in LAYER_NORM_FIELDS:
            # The reference's layer norm over a map's channels is its layers (LayerNormLayer.swift), the last a
            # scale layer holding gamma as its scale and beta as its bias: the program's layer_norm's constants.
            # (The reference writes gamma 1 and beta 0 where the layer has none; layer_norm's defaults.)
            name = mil_identifier(f"{layer}_{LAYER_NORM_FIELDS[field]}")
            var = inferred.get(name)
            if var is None and mil_identifier(f"{layer}_axes") in layer_norm_axes and (expected == (1 if field == "scale" else 0)).all():
                continue
        if var is None or var.val is None:
            fail(f"the reference's {layer}.{field} has no constant {name} in the program")
        if var.dtype == types.fp16:
            expected = cast_fp16(expected)
            halves += 1
        actual = np.asarray(var.val, dtype=expected.dtype).ravel()
        if actual.tobytes() != expected.tobytes():
            fail(f"{name} differs from the reference's {layer}.{field}")
        compared += 1
    cast = f" ({halves} cast to float16 as coremltools casts them)" if halves else ""
    print(f"reference {path}: {compared} weight tensors bit-identical in the program{cast}")


if __name__ == "__main__":
    main()
