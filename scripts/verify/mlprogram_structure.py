#!/usr/bin/env python3
"""Compares the structure of this toolkit's ML Programs with coremltools' (issue 36).

Usage: mlprogram_structure.py [WORK] [--convert BIN] [--reuse] [--models NAME ...]

For three CNN classifiers built here from one source each (random weights,
seeded; every batch norm given random statistics and every Keras bias random
values, as trained models have):
  keras_cnn       a small tf_keras Sequential CNN, 32x32x3: Conv2D, BatchNorm,
                  ReLU, MaxPooling2D (twice), Flatten, Dense+relu, Dense+softmax
  keras_mobilenet tf_keras.applications.MobileNet(alpha=0.25, 128x128,
                  weights=None), softmax head
  torch_resnet18  torchvision's resnet18(weights=None), 224x224, logits
each is converted to an ML Program (iOS 15, float32 compute) twice:
  theirs  coremltools' ct.convert(convert_to="mlprogram",
          minimum_deployment_target=ct.target.iOS15,
          compute_precision=ct.precision.FLOAT32): the tf_keras model object
          (its TensorFlow 2 frontend), or torch.jit.trace of the torch model
          (its TorchScript frontend), with a fixed [1, ...] input shape;
  ours    coreml-convert keras model.h5 / onnx model.onnx (torch.onnx.export,
          TorchScript exporter, opset 17) --convert-to mlprogram
          --compute-precision float32.
Both programs are read as coremltools specs (ct.utils.load_spec of
Data/com.apple.CoreML/model.mlmodel); the operations of the main function's
block (and of any nested block) are counted by type, `const` included, and
the constants split into float tensors (weights, biases, scales) and the
others (int32 / bool / string parameters: strides, pads, axes, shapes).
Each program's operations are listed in WORK/NAME/{theirs,ours}_ops.txt
(type, outputs with MIL data type and shape, inputs, small constants' values).
Printed per model: a side-by-side table (op type, theirs, ours), the totals,
the weight bytes each program holds, and the output each declares (in the
model description and in the program) and its inputs; the outputs must
have the same shape once sizes of 1 are dropped (coremltools keeps the
batch: [1, 10]; this toolkit writes [10]), or the script exits 1.

The conv and linear operations are also paired in order and their weights
and biases compared (as coremltools' MIL-proto loader reads them from each
weight file): both tools fold batch norms into the convolutions, so they
must agree to float32 rounding, |theirs - ours| <= 1e-5 * max(1, |theirs|).
And coremltools' package is predicted by coreml-predict (beside --convert)
on a seeded random input against the framework (tf_keras for the Keras
models, onnxruntime on the torch model's ONNX export): this toolkit reading
and running a program it did not write, |ours - ref| <= 1e-4 * max(1, |ref|).

Proves nothing about the values our programs compute (scripts/verify/mlprogram.sh
does): it is the structure comparison issue 36's done-when asks for. Both tools
write the program they choose; the differences are explained in the note.

Pinned versions (checked at start, exit 2 if others): coremltools 9.0,
tensorflow-cpu 2.21.0 with tf-keras 2.21.0 (coremltools 9 converts tf.keras
(Keras 2) model objects; given a Keras 3.15.1 Sequential it fails in
tensorflow2/load.py's _concrete_fn_from_tf_keras: "AttributeError:
'Sequential' object has no attribute 'output_names'"), torch
2.13.0+cpu, torchvision 0.29.2, numpy 2.4.6. coremltools warns that these
TensorFlow and torch versions are newer than those it was tested with; it
converts all three models all the same.
"""
import argparse
import collections
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_USE_LEGACY_KERAS"] = "1"

PINS = {"coremltools": "9.0", "tensorflow": "2.21.0", "tf_keras": "2.21.0", "torch": "2.13.0", "torchvision": "0.29.2",
        "numpy": "2.4.6"}
ROOT = Path(__file__).resolve().parent.parent.parent
MIL_FLOATS = {10, 11, 12}  # FLOAT16, FLOAT32, FLOAT64 in MIL.proto's DataType
SIZES = {10: 2, 11: 4, 12: 8}


def import_torchvision():
    """torchvision from PyPI (a CUDA build) beside the CPU torch: make_onnx_torchvision.py declares its three
    C++ operators before importing it (no kernels; resnet18 never calls them)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import make_onnx_torchvision  # noqa: F401  (the declarations, then torchvision)
    import torch
    import torchvision
    return torch, torchvision


def check_versions():
    import numpy
    import tensorflow
    import tf_keras
    import coremltools
    torch, torchvision = import_torchvision()
    found = {"coremltools": coremltools.__version__, "tensorflow": tensorflow.__version__, "tf_keras": tf_keras.__version__,
             "torch": torch.__version__, "torchvision": torchvision.__version__, "numpy": numpy.__version__}
    wrong = [f"{k} {found[k]} (want {v})" for k, v in PINS.items() if not found[k].startswith(v)]
    if wrong:
        print("mlprogram_structure: unpinned versions: " + ", ".join(wrong), file=sys.stderr)
        sys.exit(2)
    return found


def randomize_keras(model, seed):
    """Random batch-norm gamma, beta, moving mean and variance (fresh ones are 1, 0, 0, 1), and random biases
    (Keras starts them at zero, and coremltools drops an add of zeros: the structure would depend on that)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if getattr(layer, "bias", None) is not None:
            layer.bias.assign(rng.normal(0, 0.1, layer.bias.shape).astype("float32"))
        if type(layer).__name__ == "BatchNormalization":
            gamma, beta, mean, variance = layer.get_weights()
            layer.set_weights([rng.uniform(0.5, 1.5, gamma.shape).astype("float32"), rng.normal(0, 0.1, beta.shape).astype("float32"),
                               rng.normal(0, 0.1, mean.shape).astype("float32"), rng.uniform(0.5, 1.5, variance.shape).astype("float32")])


def build_keras(name, folder):
    import tf_keras as keras
    keras.utils.set_random_seed(0)
    if name == "keras_cnn":
        layers = keras.layers
        model = keras.Sequential([
            keras.Input((32, 32, 3), name="image"),
            layers.Conv2D(16, 3, padding="same"), layers.BatchNormalization(), layers.ReLU(), layers.MaxPooling2D(),
            layers.Conv2D(32, 3, padding="same"), layers.BatchNormalization(), layers.ReLU(), layers.MaxPooling2D(),
            layers.Flatten(), layers.Dense(32, activation="relu"), layers.Dense(10, activation="softmax")], name="keras_cnn")
        shape = (1, 32, 32, 3)
    else:
        model = keras.applications.MobileNet(input_shape=(128, 128, 3), alpha=0.25, weights=None, classes=10)
        shape = (1, 128, 128, 3)
    randomize_keras(model, 1)
    model.save(folder / "model.h5")
    return model, shape


def build_torch(folder):
    torch, torchvision = import_torchvision()
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.weight.copy_(torch.rand(module.num_features, generator=generator) + 0.5)
                module.bias.copy_(torch.randn(module.num_features, generator=generator) * 0.1)
                module.running_mean.copy_(torch.randn(module.num_features, generator=generator) * 0.1)
                module.running_var.copy_(torch.rand(module.num_features, generator=generator) + 0.5)
    x = torch.rand(1, 3, 224, 224, generator=generator)
    torch.onnx.export(model, (x,), str(folder / "model.onnx"), opset_version=17, dynamo=False, input_names=["input"],
                      output_names=["logits"])
    traced = torch.jit.trace(model, x)
    return traced, (1, 3, 224, 224)


def convert_theirs(model, shape, input_name, package):
    import coremltools as ct
    converted = ct.convert(model, inputs=[ct.TensorType(name=input_name, shape=shape)], convert_to="mlprogram",
                           minimum_deployment_target=ct.target.iOS15, compute_precision=ct.precision.FLOAT32)
    converted.save(str(package))


def convert_ours(binary, frontend, source, package):
    command = [binary, frontend, str(source), "--convert-to", "mlprogram", "--compute-precision", "float32", "-q", "-o",
               str(package)]
    return subprocess.run(command).returncode


def count_block(block, counts, dims):
    for op in block.operations:
        counts[op.type] += 1
        if op.type == "const":
            tensor = op.outputs[0].type.tensorType
            kind = "float" if tensor.dataType in MIL_FLOATS else "other"
            counts[f"  const: {kind}"] += 1
            if kind == "float":
                elements = 1
                for d in tensor.dimensions:
                    elements *= d.constant.size
                counts["weight bytes"] += elements * SIZES[tensor.dataType]
        for output in op.outputs:
            if output.type.WhichOneof("type") == "tensorType":
                dims[output.name] = [d.constant.size for d in output.type.tensorType.dimensions]
        for nested in op.blocks:
            count_block(nested, counts, dims)


def listing(block, indent=""):
    """One line per operation: type, outputs with data type and shape, inputs; a small constant's value."""
    lines = []
    for op in block.operations:
        outputs = []
        for output in op.outputs:
            tensor = output.type.tensorType
            outputs.append(f"{output.name}:{tensor.dataType}{[d.constant.size for d in tensor.dimensions]}")
        inputs = {k: [a.name or "<value>" for a in v.arguments] for k, v in op.inputs.items()}
        line = f"{indent}{op.type} {' '.join(outputs)} <- {inputs}"
        if op.type == "const":
            value = op.attributes["val"]
            which = value.WhichOneof("value")
            if which == "immediateValue":
                text = str(value.immediateValue).replace("\n", " ")
                line += f" = {text[:120]}"
            else:
                line += f" = {which}"
        lines.append(line)
        for nested in op.blocks:
            lines += listing(nested, indent + "  ")
    return lines


def types_by_number(function_inputs, name):
    """The MIL data type and shape the main function declares for an input."""
    import coremltools as ct
    for value in function_inputs:
        if value.name == name:
            tensor = value.type.tensorType
            return f"{ct.proto.MIL_pb2.DataType.Name(tensor.dataType)}{[d.constant.size for d in tensor.dimensions]}"
    return "absent"


def read_program(package):
    import coremltools as ct
    spec = ct.utils.load_spec(str(package / "Data" / "com.apple.CoreML" / "model.mlmodel"))
    function = spec.mlProgram.functions["main"]
    block = function.block_specializations[function.opset]
    counts, dims = collections.Counter(), {}
    count_block(block, counts, dims)
    (package.parent / f"{package.stem}_ops.txt").write_text("\n".join(listing(block)) + "\n")
    described = [(o.name, list(o.type.multiArrayType.shape)) for o in spec.description.output]
    array_types = ct.proto.FeatureTypes_pb2.ArrayFeatureType.ArrayDataType
    inputs = [(i.name, list(i.type.multiArrayType.shape), array_types.Name(i.type.multiArrayType.dataType),
               f"program {types_by_number(function.inputs, i.name)}") for i in spec.description.input]
    declared = [(name, dims.get(name)) for name in block.outputs]
    return counts, inputs, described, declared, function.opset, spec.specificationVersion


def table(name, theirs, ours):
    extra = ("  const: float", "  const: other", "weight bytes")
    types = sorted(k for k in set(theirs) | set(ours) if k not in extra)
    rows = []
    for op_type in types:
        rows.append((op_type, theirs[op_type], ours[op_type]))
        if op_type == "const":
            rows += [(k, theirs[k], ours[k]) for k in extra[:2]]
    total = ("total ops", sum(theirs[t] for t in types), sum(ours[t] for t in types))
    width = max(len(r[0]) for r in rows + [total])
    lines = [f"== {name}", f"{'op type':<{width}}  {'theirs':>7}  {'ours':>7}"]
    lines += [f"{r[0]:<{width}}  {r[1]:>7}  {r[2]:>7}" for r in rows]
    lines.append(f"{total[0]:<{width}}  {total[1]:>7}  {total[2]:>7}")
    lines.append(f"{'ops besides const':<{width}}  {total[1] - theirs['const']:>7}  {total[2] - ours['const']:>7}")
    lines.append(f"{'weight bytes':<{width}}  {theirs['weight bytes']:>7}  {ours['weight bytes']:>7}")
    return "\n".join(lines)


def squeezed(shape):
    """A shape without its sizes of 1 ([1, 10] and [10] hold the same vector)."""
    return [size for size in shape or [] if size != 1]


def weighted_layers(package):
    """(op type, weight, bias) of each conv and linear in program order, as coremltools' MIL-proto loader reads
    the package (weights from its blob file)."""
    import coremltools as ct
    from coremltools.converters.mil.frontend.milproto.load import load as milproto_to_pymil
    model = ct.models.MLModel(str(package), skip_model_load=True)
    spec = model.get_spec()
    program = milproto_to_pymil(spec, spec.specificationVersion, model.weights_dir)
    layers = []
    for op in program.functions["main"].operations:
        if op.op_type in ("conv", "linear"):
            bias = op.inputs.get("bias")
            layers.append((op.op_type, op.inputs["weight"].val, None if bias is None else bias.val))
    return layers


def compare_weights(theirs, ours):
    """Pairs the conv and linear operations in order; their weights and biases (batch norms folded in by both
    tools) must agree to float32 rounding: |theirs - ours| <= 1e-5 * max(1, |theirs|). Returns a line."""
    import numpy as np
    their_layers, our_layers = weighted_layers(theirs), weighted_layers(ours)
    if [(t, w.shape) for t, w, _ in their_layers] != [(t, w.shape) for t, w, _ in our_layers]:
        return False, "weights: the conv/linear operations differ in order, type or weight shape"
    identical, worst = 0, 0.0
    for (_, their_weight, their_bias), (_, our_weight, our_bias) in zip(their_layers, our_layers):
        pairs = [(their_weight, our_weight)] + ([(their_bias, our_bias)] if their_bias is not None or our_bias is not None else [])
        for a, b in pairs:
            if a is None or b is None:
                return False, "weights: a conv/linear has a bias in one program only"
            worst = max(worst, float((np.abs(a - b) / np.maximum(1, np.abs(a))).max()))
        identical += all(np.array_equal(a, b) for a, b in pairs)
    good = worst <= 1e-5
    return good, (f"weights: {len(our_layers)} conv/linear paired in order, {identical} bit-identical, "
                  f"max |theirs - ours| / max(1, |theirs|) = {worst:.3g}{'' if good else ' (over 1e-5)'}")


def predict_theirs(name, folder, predict):
    """coreml-predict on coremltools' package (this toolkit reading a program it did not write) against the
    framework on the same seeded random input: tf_keras for the Keras models (model.h5), onnxruntime for the torch
    one (its model.onnx export). Returns (good, line): |ours - ref| <= 1e-4 * max(1, |ref|)."""
    import json
    import numpy as np
    theirs = folder / "theirs.mlpackage"
    described = json.loads(subprocess.run([str(Path(predict).parent / "coreml-inspect"), str(theirs), "--json"], check=True,
                                          capture_output=True, text=True).stdout)
    input_name, output_name = described["inputs"][0]["name"], described["outputs"][0]["name"]
    shape = described["inputs"][0]["shape"]
    x = np.random.default_rng(5).random(shape, dtype=np.float32)
    if name.startswith("torch"):
        import onnxruntime
        session = onnxruntime.InferenceSession(str(folder / "model.onnx"))
        reference = session.run(None, {session.get_inputs()[0].name: x})[0]
    else:
        import tf_keras
        reference = tf_keras.models.load_model(folder / "model.h5", compile=False).predict(x, verbose=0)
    np.save(folder / "theirs_input.npy", x)
    done = subprocess.run([predict, str(theirs), "--input", f"{input_name}={folder / 'theirs_input.npy'}", "--output-npy",
                           str(folder / "theirs_predicted")], capture_output=True, text=True)
    if done.returncode != 0:
        return False, f"coreml-predict on theirs: exit {done.returncode}: {done.stderr.strip()}"
    ours = np.load(folder / "theirs_predicted" / f"{output_name}.npy").reshape(-1)
    reference = reference.reshape(-1)
    if ours.shape != reference.shape:
        return False, f"coreml-predict on theirs: {ours.shape[0]} values, the framework {reference.shape[0]}"
    worst = float((np.abs(ours - reference) / np.maximum(1, np.abs(reference))).max())
    good = worst <= 1e-4
    framework = "onnxruntime (model.onnx)" if name.startswith("torch") else "tf_keras"
    return good, f"theirs predicted by coreml-predict vs {framework}: max |ours - ref| / max(1, |ref|) = {worst:.3g}" + (
        "" if good else " (over 1e-4)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", nargs="?", type=Path, default=Path("/tmp/mlprogram_structure"))
    parser.add_argument("--convert", default=str(ROOT / ".build" / "release" / "coreml-convert"))
    parser.add_argument("--reuse", action="store_true", help="keep sources and coremltools' packages already in WORK")
    parser.add_argument("--models", nargs="+", default=["keras_cnn", "keras_mobilenet", "torch_resnet18"])
    args = parser.parse_args()
    if not (os.path.isfile(args.convert) and os.access(args.convert, os.X_OK)):
        print(f"mlprogram_structure: error: {args.convert} is not an executable coreml-convert (--convert)", file=sys.stderr)
        print("see --help", file=sys.stderr)
        sys.exit(64)
    versions = check_versions()
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()), flush=True)
    failures = 0
    for name in args.models:
        folder = args.work / name
        folder.mkdir(parents=True, exist_ok=True)
        theirs, ours = folder / "theirs.mlpackage", folder / "ours.mlpackage"
        torch_model = name.startswith("torch")
        source = folder / ("model.onnx" if torch_model else "model.h5")
        if not (args.reuse and theirs.exists() and source.exists()):
            if torch_model:
                model, shape = build_torch(folder)
                convert_theirs(model, shape, "input", theirs)
            else:
                model, shape = build_keras(name, folder)
                convert_theirs(model, shape, model.inputs[0].name.split(":")[0], theirs)
        status = convert_ours(args.convert, "onnx" if torch_model else "keras", source, ours)
        if status != 0:
            print(f"\n== {name}\nmlprogram_structure: coreml-convert exited {status} on {source}", flush=True)
            failures += 1
            continue
        their_counts, their_inputs, their_described, their_declared, their_opset, their_version = read_program(theirs)
        our_counts, our_inputs, our_described, our_declared, our_opset, our_version = read_program(ours)
        print()
        print(table(name, their_counts, our_counts))
        for who, counts, inputs, described, declared, opset, version in [
                ("theirs", their_counts, their_inputs, their_described, their_declared, their_opset, their_version),
                ("ours", our_counts, our_inputs, our_described, our_declared, our_opset, our_version)]:
            print(f"{who + ':':<7} specification {version}, opset {opset}; inputs {inputs}; description outputs {described}; "
                  f"program outputs {declared}")
        their_shapes = [squeezed(shape) for _, shape in their_declared]
        our_shapes = [squeezed(shape) for _, shape in our_declared]
        same = their_shapes == our_shapes
        print(f"outputs: {'same' if same else 'DIFFERENT'} shape without sizes of 1 (theirs {their_shapes}, ours {our_shapes})",
              flush=True)
        weights_agree, line = compare_weights(theirs, ours)
        print(line, flush=True)
        predicted, line = predict_theirs(name, folder, str(Path(args.convert).parent / "coreml-predict"))
        print(line, flush=True)
        failures += not same or not weights_agree or not predicted
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
