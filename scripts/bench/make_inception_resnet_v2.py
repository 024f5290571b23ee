#!/usr/bin/env python3
"""Writes a frozen Inception-ResNet-v2 (random weights, fixed seed) for the
TensorFlow converter's opt-in tests and for benchmarks. Not committed.

  .venv/bin/python scripts/bench/make_inception_resnet_v2.py OUT_DIR

OUT_DIR gets

  inception_resnet_v2.pb     frozen GraphDef (~225 MB, ~55.9M parameters):
                             tf.keras.applications.InceptionResNetV2(
                             weights=None, classifier_activation="softmax")
                             built after tf.keras.utils.set_random_seed(0),
                             called in a tf.function on a [1,299,299,3] input
                             and frozen with convert_variables_to_constants_v2
  imagenet_slim_labels.txt   one label per output: Keras' model has 1000
                             classes (no "background" class as in TF-slim's
                             1001), and ImageNet's class names are not in the
                             keras package (decode_predictions downloads them),
                             so the labels are class_0 .. class_999
  input.npy                  float32 [299, 299, 3], an image-like picture with
                             integral values in [0, 255] (deterministic)
  output.npy                 float32 [1000]: the frozen graph's softmax for
                             input * 2/255 - 1 (Inception preprocessing; as a
                             converter option: image scale 2/255, biases -1)
  output_logits.npy          float32 [1000], the BiasAdd before the Softmax
  output_avg_pool.npy        float32 [1536], the global average pool (Mean)
  output_block35_1.npy       float32 [35, 35, 320], the first block35's Relu
                             (with random weights the softmax is nearly
                             uniform, so compare these too: see meta.json)
  meta.json                  tensor names, op types with counts, parameter
                             count, sizes, timings, peak memory, the top-5

Verification: output.npy comes from graph.pb re-imported with
tf.compat.v1.import_graph_def and run in a Session; the Keras model's own
prediction must agree within 1e-4*max(1,|ref|) (the difference is in
meta.json).

Deterministic: fixed seeds, single-threaded TensorFlow with op determinism,
oneDNN off; a rerun writes the same files (timings in meta.json aside).
Pinned: tensorflow-cpu 2.21.0 (Keras 3.15.1), numpy 2.4.6. Takes 35-75 s
and 4.0 GiB peak RSS on a 2-core VM (freezing alone peaks at 3.1 GiB).
"""

import argparse
import collections
import gc
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_mlmodels import quiet_imports  # noqa: E402

PINS = {"numpy": "2.4.6", "tensorflow": "2.21.0", "keras": "3.15.1"}
SIZE = 299
TOLERANCE = 1e-4

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_DETERMINISTIC_OPS", "1")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
with quiet_imports():
    import numpy as np
    import tensorflow as tf
    import keras
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)

    tf.get_logger().setLevel("ERROR")
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.experimental.enable_op_determinism()


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # KiB on Linux


def image(height, width, seed=0):
    """Image-like float32 [H, W, 3] with integral values in [0, 255]:
    colour gradients, a few discs and bars, and noise."""
    gen = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float64)
    yy, xx = yy / (height - 1), xx / (width - 1)
    img = np.stack([200 * xx + 30, 180 * yy + 40, 220 * (1 - xx) * (1 - yy) + 20], axis=-1)
    for _ in range(6):
        cy, cx, r = gen.uniform(0.1, 0.9), gen.uniform(0.1, 0.9), gen.uniform(0.05, 0.2)
        img[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = gen.uniform(0, 255, 3)
    for _ in range(4):
        y0, x0 = gen.integers(0, height - 40), gen.integers(0, width - 120)
        img[y0:y0 + gen.integers(8, 40), x0:x0 + gen.integers(40, 120)] = gen.uniform(0, 255, 3)
    img += gen.normal(0, 10, img.shape)
    return np.clip(np.round(img), 0, 255).astype(np.float32)


def extra_tensors(graph_def):
    """(file key, tensor, description) of intermediate tensors worth checking:
    the logits before Softmax, the global average pool, the first block35."""
    nodes = {n.name: n for n in graph_def.node}
    softmax = next(n for n in graph_def.node if n.op == "Softmax")
    logits = nodes[softmax.input[0].split(":")[0]]
    mean = next(n for n in graph_def.node if n.op == "Mean")
    block = next(n for n in graph_def.node if n.op == "Relu" and "block35_1_ac" in n.name)
    return [("logits", f"{logits.name}:0", f"{logits.op} feeding the Softmax, [1000]"),
            ("avg_pool", f"{mean.name}:0", "global average pool (Mean over [1,2]), [1536]"),
            ("block35_1", f"{block.name}:0", "output of the first block35 (Relu), [35,35,320]")]


def check_versions():
    found = {"numpy": np.__version__, "tensorflow": tf.__version__, "keras": keras.__version__}
    wrong = [f"{k} {found[k]} (want {v})" for k, v in PINS.items() if not found[k].startswith(v)]
    if wrong:
        raise SystemExit("make_inception_resnet_v2: unpinned versions: " + ", ".join(wrong))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    args = parser.parse_args()
    check_versions()
    out = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    times = {}
    start = time.perf_counter()

    def lap(name, since):
        times[name] = round(time.perf_counter() - since, 2)
        print(f"  {name}: {times[name]} s, peak RSS {peak_rss_mib():.0f} MiB", flush=True)
        return time.perf_counter()

    t = time.perf_counter()
    keras.backend.set_image_data_format("channels_last")
    tf.keras.utils.set_random_seed(0)
    with quiet_imports():
        model = tf.keras.applications.InceptionResNetV2(
            weights=None, classifier_activation="softmax", input_shape=(SIZE, SIZE, 3))
    params = int(model.count_params())
    classes = int(model.output.shape[-1])
    t = lap("build", t)

    @tf.function(input_signature=[tf.TensorSpec([1, SIZE, SIZE, 3], tf.float32, name="input")])
    def predict(x):
        return {"predictions": model(x, training=False)}

    with quiet_imports():
        concrete = predict.get_concrete_function()
        frozen = convert_variables_to_constants_v2(concrete)
    graph_def = frozen.graph.as_graph_def()
    input_tensor = frozen.inputs[0].name
    output_tensor = frozen.outputs[0].name
    t = lap("freeze", t)

    pb = out / "inception_resnet_v2.pb"
    data = graph_def.SerializeToString(deterministic=True)
    pb.write_bytes(data)
    del data
    t = lap("write", t)

    raw = image(SIZE, SIZE)
    feed = (np.float32(2 / 255) * raw + np.float32(-1)).astype(np.float32)[None]
    np.save(out / "input.npy", raw)
    keras_out = model(tf.constant(feed), training=False).numpy()
    t = lap("keras predict", t)

    counts = collections.Counter(node.op for node in graph_def.node)
    for function in graph_def.library.function:
        counts.update(node.op for node in function.node_def)
    placeholders = [n.name for n in graph_def.node if n.op == "Placeholder"]
    node_count = len(graph_def.node)
    extra = extra_tensors(graph_def)
    # Free the Keras model and the in-memory graphs before TensorFlow imports
    # graph.pb again (halves the peak memory).
    del graph_def, frozen, concrete, predict, model
    keras.backend.clear_session()
    gc.collect()

    # The reference: graph.pb read back from disk and run.
    with quiet_imports():
        reread = tf.compat.v1.GraphDef.FromString(pb.read_bytes())
        graph = tf.Graph()
        with graph.as_default():
            tf.compat.v1.import_graph_def(reread, name="")
        config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1,
                                          inter_op_parallelism_threads=1)
        with tf.compat.v1.Session(graph=graph, config=config) as session:
            ref, *extra_values = session.run([output_tensor] + [x[1] for x in extra],
                                             {input_tensor: feed})
        del reread, graph
    t = lap("frozen graph predict", t)
    diff = float(np.max(np.abs(ref.astype(np.float64) - keras_out) / np.maximum(1, np.abs(ref))))
    if diff > TOLERANCE or not np.all(np.isfinite(ref)):
        raise SystemExit(f"make_inception_resnet_v2: frozen graph and Keras differ by {diff}")
    np.save(out / "output.npy", ref[0].astype(np.float32))
    extra_meta = []
    for (key, tensor, what), value in zip(extra, extra_values):
        file = f"output_{key}.npy"
        np.save(out / file, value[0].astype(np.float32))
        extra_meta.append({"tensor": tensor, "file": file, "shape": list(value.shape[1:]),
                           "what": what, "min": float(value.min()), "max": float(value.max()),
                           "std": float(value.std())})

    labels = [f"class_{i}" for i in range(classes)]
    (out / "imagenet_slim_labels.txt").write_text("\n".join(labels) + "\n")

    top = np.argsort(-ref[0])[:5]
    total = time.perf_counter() - start
    meta = {
        "model": "tf.keras.applications.InceptionResNetV2(weights=None, "
                 "classifier_activation='softmax'), tf.keras.utils.set_random_seed(0)",
        "keras": keras.__version__,
        "tensorflow": tf.__version__,
        "freezing": "tf.function([1,299,299,3]) -> convert_variables_to_constants_v2",
        "graph": pb.name,
        "graphBytes": pb.stat().st_size,
        "parameters": params,
        "nodeCount": node_count,
        "input": {"tensor": input_tensor, "shape": [1, SIZE, SIZE, 3],
                  "placeholders": placeholders, "file": "input.npy",
                  "fileShape": [SIZE, SIZE, 3],
                  "fileLayout": "HWC raw RGB pixels, integral 0..255"},
        "output": {"tensor": output_tensor, "shape": [classes], "file": "output.npy"},
        "intermediateOutputs": extra_meta,
        "outputNote": ("With random weights (Keras' initializers; batch norm without gamma, "
                       "beta 0, moving mean 0, variance 1) activations are small and the softmax is nearly uniform "
                       "(every probability close to 1/1000, the top-5 within ~1e-5 of each "
                       "other), so output.npy alone proves little under 1e-4*max(1,|ref|): "
                       "compare output_logits.npy and the intermediate maps with a tolerance "
                       "relative to each tensor's largest |value| (see min/max/std here). The "
                       "top label is not meaningful."),
        "options": {"inputShapes": {input_tensor: [1, SIZE, SIZE, 3]},
                    "outputNames": [output_tensor], "imageInput": input_tensor,
                    "isBGR": False, "imageScale": 2 / 255, "redBias": -1.0,
                    "greenBias": -1.0, "blueBias": -1.0,
                    "classLabels": "imagenet_slim_labels.txt"},
        "labels": (f"{classes} labels class_0..class_{classes - 1}: Keras' InceptionResNetV2 has "
                   f"{classes} classes (TF-slim's frozen graphs have 1001 with 'background' "
                   "first); ImageNet names are not available offline in the keras package"),
        "opTypes": dict(sorted(counts.items())),
        "reference": "graph.pb re-imported with tf.compat.v1.import_graph_def, Session.run on "
                     "2/255 * input.npy - 1 (float32)",
        "keras_vs_frozen_max_rel_diff": float(f"{diff:.3g}"),
        "top5": [{"label": labels[i], "probability": float(ref[0, i])} for i in top],
        "tolerance": "1e-4*max(1,|ref|)",
        "seconds": {**times, "total": round(total, 2)},
        "peakRssMiB": round(peak_rss_mib()),
    }
    (out / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    print(f"make_inception_resnet_v2: {pb} {pb.stat().st_size} bytes "
          f"({pb.stat().st_size / 2**20:.1f} MiB), {params} parameters, "
          f"{node_count} nodes; input {input_tensor}, output {output_tensor}; "
          f"{total:.1f} s, peak RSS {peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
