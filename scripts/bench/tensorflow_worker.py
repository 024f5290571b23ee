#!/usr/bin/env python3
"""Times a frozen TensorFlow graph in a Session; run in its own process by
runtime_speed.py (as opencv_worker.py is for OpenCV dnn), so that its peak
RSS is TensorFlow's alone (plus the interpreter, numpy and TensorFlow, which
--baseline measures).

  tensorflow_worker.py --baseline
  tensorflow_worker.py --graph graph.pb --input input:0=x.npy \
      --outputs ours_name=Identity:0,... --runs 20 --warmup 3 --threads 2 --out-dir DIR

x.npy holds the input as the graph takes it (NHWC with its batch axis).
Prints one JSON object on stdout: {"times_ms": [...], "median_ms", "min_ms",
"tensorflow"}, and writes each output to DIR/<ours_name>.npy (float32, the
batch axis dropped, NHWC maps moved to CHW as the .mlmodel gives them).
The Session runs as TensorFlow's own CPU build runs it: intra-op threads
--threads, inter-op 1, its defaults otherwise (oneDNN kernels on).
"""

import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", action="store_true",
                        help="import numpy and tensorflow, then exit (the interpreter's own RSS)")
    parser.add_argument("--graph")
    parser.add_argument("--input", help="tensor=file.npy")
    parser.add_argument("--outputs", default="", help="ours=tensor,...")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out-dir")
    args = parser.parse_args()
    if args.baseline:
        print(json.dumps({"tensorflow": tf.__version__}))
        return

    graph_def = tf.compat.v1.GraphDef()
    with open(args.graph, "rb") as f:
        graph_def.ParseFromString(f.read())
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=args.threads, inter_op_parallelism_threads=1)
    session = tf.compat.v1.Session(graph=graph, config=config)
    tensor, path = args.input.split("=", 1)
    feed = {tensor: np.load(path).astype(np.float32)}
    pairs = [item.split("=", 1) for item in args.outputs.split(",") if item]
    fetches = [name for _, name in pairs]

    for _ in range(args.warmup):
        session.run(fetches, feed)
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        results = session.run(fetches, feed)
        times.append((time.perf_counter() - start) * 1e3)
    if args.runs == 0:
        results = session.run(fetches, feed)
    if args.out_dir:
        for (ours, _), result in zip(pairs, results):
            value = np.asarray(result, dtype=np.float32)[0]
            if value.ndim == 3:
                value = value.transpose(2, 0, 1)
            np.save(f"{args.out_dir}/{ours}.npy", value)
    ordered = sorted(times)
    print(json.dumps({
        "times_ms": times,
        "median_ms": ordered[len(ordered) // 2] if ordered else None,
        "min_ms": ordered[0] if ordered else None,
        "tensorflow": tf.__version__,
        "threads": args.threads,
    }))


if __name__ == "__main__":
    sys.exit(main())
