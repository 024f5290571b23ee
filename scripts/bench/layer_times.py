#!/usr/bin/env python3
"""Where the time goes, layer by layer, in OpenCV dnn and in `predict`.

  .venv/bin/python scripts/bench/layer_times.py [--model age_net|small] [--runs N]

`predict` has no per-layer timer, and the Swift code is not to be touched
for a measurement, so ours is measured from outside: every layer becomes a
one-layer .mlmodel (a flatten goes with the inner product after it) whose
input is the previous layer's output as OpenCV computed it, and
`predict --benchmark N` times it. That includes the fixed cost of one
Network.predict call (about what the `prob` softmax row shows). When
`predict` has `--profile` (per-layer mean times inside the whole network),
the whole model is also run with it and its figures get their own column:
they include what a layer suffers from its neighbours (threads left
spinning, caches), which the one-layer models do not.

OpenCV's own per-layer ticks come from net.getPerfProfile(), summed over the
same number of runs (fused layers, e.g. a ReLU folded into the convolution
before it, show 0). Run in this process with cv2.setNumThreads(--threads).

Uses the age_net models of runtime_speed.py (generated into .build/bench/).
"""

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from runtime_speed import BENCH_RE, MODELS, ROOT, fail, np  # noqa: E402
from coremltools.proto import Model_pb2  # noqa: E402
import cv2  # noqa: E402


def opencv_files(model):
    """The Caffe weights and prototxt the OpenCV worker is given."""
    return model.worker[model.worker.index("--model") + 1], model.worker[model.worker.index("--config") + 1]


def opencv_layers(model, runs, threads):
    cv2.setNumThreads(threads)
    net = cv2.dnn.readNet(*opencv_files(model))
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    blob = np.ascontiguousarray(np.load(model.input)[None])
    names = list(net.getLayerNames())
    probe = cv2.dnn.readNet(*opencv_files(model))
    probe.setInput(blob)   # every layer's output shape, from a second net
    blobs = {name: out[0] for name, out in zip(names, probe.forward(names))}
    shapes = {name: blob.shape for name, blob in blobs.items()}
    for _ in range(3):
        net.setInput(blob)
        net.forward()
    ticks = np.zeros(len(names))
    walls = []
    for _ in range(runs):
        net.setInput(blob)
        start = time.perf_counter()
        net.forward()
        walls.append((time.perf_counter() - start) * 1e3)
        total, timings = net.getPerfProfile()
        ticks += np.asarray(timings, dtype=np.float64).reshape(-1)[:len(names)]
    ms = ticks / cv2.getTickFrequency() * 1e3 / runs
    return dict(zip(names, ms)), blobs, shapes, sorted(walls)[len(walls) // 2]


def one_layer_model(spec_bytes, layer_indices, input_name, input_shape, output, output_shape,
                    path):
    """The layers at layer_indices alone, reading input_name [input_shape]."""
    spec = Model_pb2.Model.FromString(spec_bytes)
    nn = spec.neuralNetwork
    keep = [nn.layers[i] for i in layer_indices]
    kept = [Model_pb2.NeuralNetworkLayer.FromString(l.SerializeToString()) for l in keep]
    del nn.layers[:]
    nn.layers.extend(kept)
    for feature, name, shape in ((spec.description.input[0], input_name, input_shape),
                                 (spec.description.output[0], output, output_shape)):
        feature.name = name
        del feature.type.multiArrayType.shape[:]
        feature.type.multiArrayType.shape.extend(list(shape) + [1] * (3 - len(shape)))
    del spec.description.output[1:]
    path.write_bytes(spec.SerializeToString(deterministic=True))


def predict_times(predict, mlmodel, input_path, input_name, runs):
    result = subprocess.run([predict, str(mlmodel), "--input", f"{input_name}={input_path}",
                             "--benchmark", str(runs)], capture_output=True, text=True)
    match = BENCH_RE.search(result.stderr)
    if result.returncode != 0 or not match:
        fail(f"predict on {mlmodel.name}: {result.stderr[-2000:]}")
    return float(match.group(2)), float(match.group(3))


PROFILE_LINE = re.compile(r"^\s+(\S+): ([0-9.]+) ms$", re.M)


def in_network_profile(predict, model, runs):
    """predict --benchmark N --profile on the whole model: {layer: mean ms},
    or {} when this predict has no --profile."""
    help_text = subprocess.run([predict, "--help"], capture_output=True, text=True).stdout
    if "--profile" not in help_text:
        return {}
    result = subprocess.run([predict, str(model.mlmodel), "--input",
                             f"{model.input_name}={model.input}", "--benchmark", str(runs),
                             "--profile"], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"predict --profile: {result.stderr[-2000:]}")
    profile = {}
    for name, ms in PROFILE_LINE.findall(result.stderr):
        # A fused step ("conv1+relu1") runs both layers: its time counts for the first.
        first, *folded = name.split("+")
        profile[first] = profile.get(first, 0.0) + float(ms)
        for other in folded:
            profile.setdefault(other, 0.0)
    return profile


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=["age_net", "small"], default="age_net")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--predict", default=str(ROOT / ".build" / "release" / "coreml-predict"))
    parser.add_argument("--work-dir", default=str(ROOT / ".build" / "bench"))
    args = parser.parse_args()
    folder = Path(args.work_dir) / args.model
    model = MODELS[args.model](folder, args)
    opencv_ms, blobs, shapes, opencv_total = opencv_layers(model, args.runs, args.threads)

    profile = in_network_profile(args.predict, model, args.runs)
    spec_bytes = model.mlmodel.read_bytes()
    layers = Model_pb2.Model.FromString(spec_bytes).neuralNetwork.layers
    cuts = folder / "layers"
    cuts.mkdir(exist_ok=True)
    rows, pending, source = [], [], model.input_name
    for index, layer in enumerate(layers):
        pending.append(index)
        if layer.WhichOneof("layer") == "flatten":
            continue
        name, output = layer.name, layer.output[0]
        path = cuts / f"{index:02d}_{name}.mlmodel"
        input_path = cuts / f"{index:02d}_{name}_input.npy"
        values = np.load(model.input) if source == model.input_name else blobs[source]
        np.save(input_path, np.ascontiguousarray(values, dtype=np.float32))
        one_layer_model(spec_bytes, pending, source, values.shape, output, shapes[name], path)
        median, minimum = predict_times(args.predict, path, input_path, source, args.runs)
        rows.append((name, layer.WhichOneof("layer"), median, minimum, opencv_ms.get(name, 0.0)))
        print(f"  {name}: median {median:.2f} ms", file=sys.stderr, flush=True)
        pending, source = [], name

    flatten = {layer.name for layer in layers if layer.WhichOneof("layer") == "flatten"}
    in_net = {r[0]: profile.get(r[0], 0.0) + sum(profile.get(f, 0.0) for f in flatten
                                                 if f.startswith(r[0] + "_")) for r in rows}
    extra = " ours in network, mean ms (predict --profile) |" if profile else ""
    print(f"| layer | kind | ours alone, median ms | ours alone, min ms |{extra} "
          f"OpenCV ms (getPerfProfile, mean) |")
    print("|---|---|---:|---:|" + ("---:|" if profile else "") + "---:|")
    for name, kind, median, minimum, ocv in rows:
        cell = f" {in_net[name]:.2f} |" if profile else ""
        print(f"| {name} | {kind} | {median:.2f} | {minimum:.2f} |{cell} {ocv:.2f} |")
    cell = f" {sum(in_net.values()):.2f} |" if profile else ""
    print(f"| sum | | {sum(r[2] for r in rows):.2f} | {sum(r[3] for r in rows):.2f} |{cell} "
          f"{sum(opencv_ms.values()):.2f} (forward() wall median {opencv_total:.2f}) |")


if __name__ == "__main__":
    main()
