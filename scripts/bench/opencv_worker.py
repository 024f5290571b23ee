#!/usr/bin/env python3
"""Times one network in OpenCV dnn; run in its own process by
runtime_vs_opencv.py so that its peak RSS (wait4's ru_maxrss) is OpenCV's
alone (plus the Python interpreter, numpy and cv2, which --baseline measures).

  opencv_worker.py --baseline
  opencv_worker.py --model net.caffemodel --config net.prototxt --input x.npy \
      --outputs fc8,prob --runs 30 --warmup 3 --threads 2 --out-dir DIR

Prints one JSON object on stdout: {"times_ms": [...], "median_ms", "min_ms",
"cv2"}, and writes each requested output to DIR/<name>.npy (float32, the
batch dimension dropped). Imports only numpy and cv2, so that nothing else
weighs on the memory figure.
"""

import argparse
import json
import sys
import time

import numpy as np
import cv2


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", action="store_true",
                        help="import numpy and cv2, then exit (the interpreter's own RSS)")
    parser.add_argument("--model")
    parser.add_argument("--config", default="")
    parser.add_argument("--input")
    parser.add_argument("--outputs", default="")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out-dir")
    args = parser.parse_args()
    if args.baseline:
        print(json.dumps({"cv2": cv2.__version__}))
        return

    cv2.setNumThreads(args.threads)
    # cv2.dnn.readNet picks the importer from the file names (Caffe, TensorFlow, ONNX...).
    net = cv2.dnn.readNet(args.model, args.config)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    x = np.load(args.input).astype(np.float32)
    blob = np.ascontiguousarray(x[None])
    names = [n for n in args.outputs.split(",") if n]

    def forward():
        net.setInput(blob)
        return net.forward(names) if names else [net.forward()]

    for _ in range(args.warmup):
        forward()
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        results = forward()
        times.append((time.perf_counter() - start) * 1e3)
    if args.runs == 0:
        results = forward()
    if args.out_dir:
        for name, result in zip(names or ["output"], results):
            np.save(f"{args.out_dir}/{name}.npy", np.asarray(result, dtype=np.float32)[0])
    ordered = sorted(times)
    print(json.dumps({
        "times_ms": times,
        "median_ms": ordered[len(ordered) // 2] if ordered else None,
        "min_ms": ordered[0] if ordered else None,
        "cv2": cv2.__version__,
        "threads": cv2.getNumThreads(),
    }))


if __name__ == "__main__":
    sys.exit(main())
