#!/usr/bin/env python3
"""Writes an Inception-ResNet-v2 frozen graph in the form of TF-slim's
`inception_resnet_v2_2016_08_30_frozen.pb`, the graph of the tfcoreml
tutorial (random weights, fixed seed), with TensorFlow's outputs for one
input. Not committed.

  .venv/bin/python scripts/verify/make_slim_inception_resnet_v2.py OUT_DIR

The Keras-built graph (scripts/bench/make_inception_resnet_v2.py) has fused
batch norms and Keras' names. TF-slim's frozen graph, which users download,
is written differently, and this script writes it that way with TensorFlow's
own ops (tf.compat.v1, graph mode; TF-slim itself no longer runs on TF 2):
  - names in slim's scopes: input `input`, output
    `InceptionResnetV2/Logits/Predictions`, 1001 classes (class 0 is
    "background");
  - every weight a Const read through an Identity (`.../weights/read`, what
    freezing a variable leaves);
  - batch norm unfused and without gamma (slim's arg scope: scale=False,
    epsilon 0.001), as tf.nn.batch_normalization writes it: add (variance +
    epsilon), Rsqrt, mul, mul_1, sub, add_1;
  - residual blocks as `Add(net, Mul(scale, up))` with scales 0.17 / 0.10 /
    0.20, the last Block8 without ReLU;
  - the auxiliary head off Mixed_6a (its output is not asked for: pruned);
  - the logits' flatten as Shape -> StridedSlice -> Pack -> Reshape,
    dropout at inference (Identity), MatMul + BiasAdd, Softmax.
Layer sizes are Inception-ResNet-v2's (35x35x320 x10, 17x17x1088 x20,
8x8x2080 x10, 1536 before the logits).

OUT_DIR gets slim_inception_resnet_v2.pb (~240 MB), labels.txt (1001
lines), input.npy and input.png (the image of make_inception_resnet_v2.py,
lossless), output.npy
(softmax), output_logits.npy, output_block35_1.npy (the first block35's
ReLU, [35, 35, 320]) and meta.json. The reference runs the .pb read back
from disk in a Session on 2/255 * input - 1. Pinned as
make_inception_resnet_v2.py (tensorflow-cpu 2.21.0, numpy 2.4.6).
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
# TensorFlow set up (quiet, one thread, deterministic) and its versions checked as there.
from make_inception_resnet_v2 import check_versions, image, np, quiet_imports, tf  # noqa: E402

with quiet_imports():
    import cv2

SIZE = 299
CLASSES = 1001
SCOPE = "InceptionResnetV2"
tf1 = tf.compat.v1


class Builder:
    """Slim-style layers over tf.compat.v1 ops, weights from one generator."""

    def __init__(self, seed):
        self.gen = np.random.default_rng(seed)
        self.parameters = 0

    def weight(self, name, values):
        self.parameters += values.size
        const = tf.constant(values.astype(np.float32), name=f"{name}/Const")
        return tf.identity(const, name=f"{name}/read")

    def conv(self, x, filters, kernel, name, stride=1, padding="SAME", normalize=True, relu=True):
        kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
        cin = int(x.shape[-1])
        with tf1.variable_scope(name):
            w = self.weight("weights", self.gen.normal(0, np.sqrt(2 / (kh * kw * cin)), (kh, kw, cin, filters)))
            y = tf.nn.conv2d(x, w, [1, stride, stride, 1], padding, name="Conv2D")
            if normalize:
                with tf1.variable_scope("BatchNorm"):
                    beta = self.weight("beta", self.gen.normal(0, 0.1, filters))
                    mean = self.weight("moving_mean", self.gen.normal(0, 0.1, filters))
                    variance = self.weight("moving_variance", self.gen.uniform(0.5, 1.5, filters))
                    y = tf.nn.batch_normalization(y, mean, variance, beta, None, 0.001, name="batchnorm")
            else:
                y = tf.nn.bias_add(y, self.weight("biases", self.gen.normal(0, 0.05, filters)), name="BiasAdd")
            return tf.nn.relu(y, name="Relu") if relu else y

    @staticmethod
    def pool(x, kind, size, stride, padding, name):
        op = tf.nn.max_pool2d if kind == "max" else tf.nn.avg_pool2d
        return op(x, size, stride, padding, name=name)

    def dense(self, x, units, name):
        with tf1.variable_scope(name):
            w = self.weight("weights", self.gen.normal(0, np.sqrt(1 / int(x.shape[-1])), (int(x.shape[-1]), units)))
            b = self.weight("biases", self.gen.normal(0, 0.05, units))
            return tf.nn.bias_add(tf.matmul(x, w, name="MatMul"), b, name="BiasAdd")


def flatten(x, name):
    """slim.flatten: reshape to [batch, -1] with the batch read from the tensor."""
    with tf1.name_scope(name):
        # raw Shape: tf.shape would fold a static shape to a constant here
        batch = tf.strided_slice(tf.raw_ops.Shape(input=x), [0], [1], [1], shrink_axis_mask=1)
        return tf.reshape(x, tf.stack([batch, -1]))


def residual(b, net, branches, scale, relu=True):
    """The end of a block, in the block's scope: net + scale * up, ReLU."""
    mixed = tf.concat(branches, 3, name="concat")
    up = b.conv(mixed, int(net.shape[-1]), 1, "Conv2d_1x1", normalize=False, relu=False)
    net = tf.raw_ops.Add(x=net, y=tf.raw_ops.Mul(x=tf.constant(scale, tf.float32), y=up, name="mul"), name="add")
    return tf.nn.relu(net, name="Relu") if relu else net


def block35(b, net, name):
    with tf1.variable_scope(name):
        b0 = b.conv(net, 32, 1, "Branch_0/Conv2d_1x1")
        b1 = b.conv(b.conv(net, 32, 1, "Branch_1/Conv2d_0a_1x1"), 32, 3, "Branch_1/Conv2d_0b_3x3")
        b2 = b.conv(b.conv(b.conv(net, 32, 1, "Branch_2/Conv2d_0a_1x1"), 48, 3, "Branch_2/Conv2d_0b_3x3"),
                    64, 3, "Branch_2/Conv2d_0c_3x3")
        return residual(b, net, [b0, b1, b2], 0.17)


def block17(b, net, name):
    with tf1.variable_scope(name):
        b0 = b.conv(net, 192, 1, "Branch_0/Conv2d_1x1")
        b1 = b.conv(b.conv(b.conv(net, 128, 1, "Branch_1/Conv2d_0a_1x1"), 160, (1, 7), "Branch_1/Conv2d_0b_1x7"),
                    192, (7, 1), "Branch_1/Conv2d_0c_7x1")
        return residual(b, net, [b0, b1], 0.10)


def block8(b, net, name, relu=True):
    with tf1.variable_scope(name):
        b0 = b.conv(net, 192, 1, "Branch_0/Conv2d_1x1")
        b1 = b.conv(b.conv(b.conv(net, 192, 1, "Branch_1/Conv2d_0a_1x1"), 224, (1, 3), "Branch_1/Conv2d_0b_1x3"),
                    256, (3, 1), "Branch_1/Conv2d_0c_3x1")
        return residual(b, net, [b0, b1], 0.20, relu)


def build(b, x):
    """Returns (predictions, logits, first block35 output)."""
    with tf1.variable_scope(SCOPE):
        net = b.conv(x, 32, 3, "Conv2d_1a_3x3", stride=2, padding="VALID")
        net = b.conv(net, 32, 3, "Conv2d_2a_3x3", padding="VALID")
        net = b.conv(net, 64, 3, "Conv2d_2b_3x3")
        net = b.pool(net, "max", 3, 2, "VALID", "MaxPool_3a_3x3")
        net = b.conv(net, 80, 1, "Conv2d_3b_1x1", padding="VALID")
        net = b.conv(net, 192, 3, "Conv2d_4a_3x3", padding="VALID")
        net = b.pool(net, "max", 3, 2, "VALID", "MaxPool_5a_3x3")
        with tf1.variable_scope("Mixed_5b"):
            b0 = b.conv(net, 96, 1, "Branch_0/Conv2d_1x1")
            b1 = b.conv(b.conv(net, 48, 1, "Branch_1/Conv2d_0a_1x1"), 64, 5, "Branch_1/Conv2d_0b_5x5")
            b2 = b.conv(b.conv(b.conv(net, 64, 1, "Branch_2/Conv2d_0a_1x1"), 96, 3, "Branch_2/Conv2d_0b_3x3"),
                        96, 3, "Branch_2/Conv2d_0c_3x3")
            b3 = b.conv(b.pool(net, "avg", 3, 1, "SAME", "Branch_3/AvgPool_0a_3x3"), 64, 1, "Branch_3/Conv2d_0b_1x1")
            net = tf.concat([b0, b1, b2, b3], 3, name="concat")
        block35_1 = None
        for i in range(1, 11):
            net = block35(b, net, f"Repeat/block35_{i}")
            block35_1 = block35_1 if block35_1 is not None else net
        with tf1.variable_scope("Mixed_6a"):
            b0 = b.conv(net, 384, 3, "Branch_0/Conv2d_1a_3x3", stride=2, padding="VALID")
            b1 = b.conv(b.conv(b.conv(net, 256, 1, "Branch_1/Conv2d_0a_1x1"), 256, 3, "Branch_1/Conv2d_0b_3x3"),
                        384, 3, "Branch_1/Conv2d_1a_3x3", stride=2, padding="VALID")
            b2 = b.pool(net, "max", 3, 2, "VALID", "Branch_2/MaxPool_1a_3x3")
            net = tf.concat([b0, b1, b2], 3, name="concat")
        for i in range(1, 21):
            net = block17(b, net, f"Repeat_1/block17_{i}")
        with tf1.variable_scope("AuxLogits"):
            aux = b.pool(net, "avg", 5, 3, "VALID", "Conv2d_1a_3x3")
            aux = b.conv(aux, 128, 1, "Conv2d_1b_1x1")
            aux = b.conv(aux, 768, int(aux.shape[1]), "Conv2d_2a_5x5", padding="VALID")
            b.dense(flatten(aux, "Flatten"), CLASSES, "Logits")
        with tf1.variable_scope("Mixed_7a"):
            b0 = b.conv(b.conv(net, 256, 1, "Branch_0/Conv2d_0a_1x1"), 384, 3, "Branch_0/Conv2d_1a_3x3",
                        stride=2, padding="VALID")
            b1 = b.conv(b.conv(net, 256, 1, "Branch_1/Conv2d_0a_1x1"), 288, 3, "Branch_1/Conv2d_1a_3x3",
                        stride=2, padding="VALID")
            b2 = b.conv(b.conv(b.conv(net, 256, 1, "Branch_2/Conv2d_0a_1x1"), 288, 3, "Branch_2/Conv2d_0b_3x3"),
                        320, 3, "Branch_2/Conv2d_1a_3x3", stride=2, padding="VALID")
            b3 = b.pool(net, "max", 3, 2, "VALID", "Branch_3/MaxPool_1a_3x3")
            net = tf.concat([b0, b1, b2, b3], 3, name="concat")
        for i in range(1, 10):
            net = block8(b, net, f"Repeat_2/block8_{i}")
        net = block8(b, net, "Block8", relu=False)
        net = b.conv(net, 1536, 1, "Conv2d_7b_1x1")
        with tf1.variable_scope("Logits"):
            net = b.pool(net, "avg", int(net.shape[1]), 1, "VALID", "AvgPool_1a_8x8")
            net = tf.identity(flatten(net, "Flatten"), name="Dropout/Identity")
            logits = b.dense(net, CLASSES, "Logits")
            predictions = tf.nn.softmax(logits, name="Predictions")
    return predictions, logits, block35_1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    args = parser.parse_args()
    check_versions()
    out = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [1, SIZE, SIZE, 3], name="input")
        builder = Builder(seed=2016)
        predictions, logits, block35_1 = build(builder, x)
    graph_def = graph.as_graph_def()
    pb = out / "slim_inception_resnet_v2.pb"
    pb.write_bytes(graph_def.SerializeToString(deterministic=True))
    ops = sorted({node.op for node in graph_def.node})
    nodes = len(graph_def.node)
    del graph_def, graph

    raw = image(SIZE, SIZE)
    feed = (np.float32(2 / 255) * raw + np.float32(-1)).astype(np.float32)[None]
    np.save(out / "input.npy", raw)
    cv2.imwrite(str(out / "input.png"), cv2.cvtColor(raw.astype(np.uint8), cv2.COLOR_RGB2BGR))
    fetched = [predictions.name, logits.name, block35_1.name]
    with quiet_imports():
        reread = tf1.GraphDef.FromString(pb.read_bytes())
        graph = tf.Graph()
        with graph.as_default():
            tf1.import_graph_def(reread, name="")
        config = tf1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
        with tf1.Session(graph=graph, config=config) as session:
            values = session.run(fetched, {"input:0": feed})
    files = ["output.npy", "output_logits.npy", "output_block35_1.npy"]
    for file, value in zip(files, values):
        if not np.all(np.isfinite(value)) or float(value.std()) == 0:
            raise SystemExit(f"make_slim_inception_resnet_v2: {file} is not finite or constant")
        np.save(out / file, value[0].astype(np.float32))
    (out / "labels.txt").write_text("\n".join(["background"] + [f"class_{i}" for i in range(1, CLASSES)]) + "\n")
    meta = {"graph": pb.name, "graphBytes": pb.stat().st_size, "parameters": builder.parameters, "nodes": nodes,
            "opTypes": ops, "input": "input:0", "tensors": dict(zip(files, fetched)),
            "stats": {f: {"min": float(v.min()), "max": float(v.max()), "std": float(v.std())} for f, v in zip(files, values)},
            "tensorflow": tf.__version__, "seconds": round(time.perf_counter() - start, 1)}
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"make_slim_inception_resnet_v2: {pb} ({pb.stat().st_size / 2**20:.1f} MiB, {builder.parameters} "
          f"parameters, {nodes} nodes, ops {', '.join(ops)}) in {meta['seconds']} s")


if __name__ == "__main__":
    main()
