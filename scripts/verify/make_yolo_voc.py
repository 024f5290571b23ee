#!/usr/bin/env python3
"""Writes yolov2-tiny-voc as Darknet publishes it (cfg/yolov2-tiny-voc.cfg:
416x416 input, nine convolutions with batch norm and leaky ReLU, six max
pools - the last size 2 stride 1 -, the 125-filter head and the 20-class
[region] with the VOC anchors and thresh=.6), generated weights (63 MB,
not committed), the VOC labels, a 416x416 picture (Samples/face.png
scaled by OpenCV once, so that neither side resizes) and OpenCV dnn's
detections on it, for scripts/verify/yolo_voc.sh.

The weights are He-normal with batch-norm statistics near identity; in
the head, the box kernels are small (boxes near their anchors), the class
kernels three times larger and summing to zero (peaked scores, no class
favoured by the maps' common level), and every objectness bias is chosen
so that 5 to 30 boxes pass the
region's thresh=.6 (OpenCV's cut; its region layer then runs its own
per-class NMS at 0.4).

Usage: .venv/bin/python scripts/verify/make_yolo_voc.py WORK_DIR
writes WORK_DIR/{yolov2-tiny-voc.cfg, yolov2-tiny-voc.weights, voc.txt,
picture.png, opencv.json}
"""
import json
import struct
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
VOC = ["aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow", "diningtable", "dog", "horse",
       "motorbike", "person", "pottedplant", "sheep", "sofa", "train", "tvmonitor"]
ANCHORS = "1.08,1.19,  3.42,4.41,  6.63,11.38,  9.42,5.11,  16.62,10.52"
THRESH, NMS = 0.6, 0.4


def config():
    lines = ["[net]", "batch=64", "subdivisions=8", "width=416", "height=416", "channels=3", "momentum=0.9", "decay=0.0005",
             "angle=0", "saturation = 1.5", "exposure = 1.5", "hue=.1", "", "learning_rate=0.001", "max_batches = 40200",
             "policy=steps", "steps=-1,100,20000,30000", "scales=.1,10,.1,.1", ""]
    conv = lambda filters, size=3, bn=True, activation="leaky": (  # noqa: E731
        ["[convolutional]"] + (["batch_normalize=1"] if bn else []) + [f"filters={filters}", f"size={size}", "stride=1", "pad=1",
                                                                       f"activation={activation}", ""])
    for index, filters in enumerate([16, 32, 64, 128, 256, 512]):
        lines += conv(filters) + ["[maxpool]", "size=2", f"stride={1 if index == 5 else 2}", ""]
    lines += conv(1024) + ["###########", ""] + conv(1024) + conv(125, size=1, bn=False, activation="linear")
    lines += ["[region]", f"anchors = {ANCHORS}", "bias_match=1", "classes=20", "coords=4", "num=5", "softmax=1", "jitter=.2",
              "rescore=1", "", "object_scale=5", "noobject_scale=1", "class_scale=1", "coord_scale=1", "", "absolute=1",
              f"thresh = {THRESH}", "random=1", ""]
    return "\n".join(lines)


def write_weights(path, objectness_bias):
    """Header (version 0.2, 64-bit seen), then per convolution: biases,
    [scales, means, variances], kernel. The same generator seed each time:
    only the head's objectness biases change between calls."""
    rng = np.random.default_rng(3)
    with open(path, "wb") as f:
        f.write(struct.pack("<iiiq", 0, 2, 0, 0))
        channels = 3
        plan = [16, 32, 64, 128, 256, 512, 1024, 1024]
        for filters in plan:
            f.write(normalized_convolution(rng, filters, channels * 9))
            channels = filters
        f.write(detection_head(rng, 125, channels, 25, objectness_bias))


def normalized_convolution(rng, filters, fan_in):
    """A convolution's values in Darknet's order: biases, batch-norm scales,
    means and variances near identity, a He-normal kernel."""
    return b"".join([rng.normal(0, 0.1, filters).astype("<f4").tobytes(), rng.uniform(0.8, 1.2, filters).astype("<f4").tobytes(),
                     rng.normal(0, 0.1, filters).astype("<f4").tobytes(), rng.uniform(0.5, 1.5, filters).astype("<f4").tobytes(),
                     (rng.normal(0, 1, filters * fan_in) * np.sqrt(2.0 / fan_in)).astype("<f4").tobytes()])


def detection_head(rng, filters, fan_in, per_anchor, objectness_bias):
    """A head convolution's biases and kernel (no batch norm): objectness
    biases `objectness_bias`, the rest 0; box kernels small, class kernels
    three times larger and summing to zero."""
    biases = np.zeros(filters)
    biases[4::per_anchor] = objectness_bias
    kernel = rng.normal(0, 1, (filters, fan_in)) * np.sqrt(2.0 / fan_in)
    for first in range(0, filters, per_anchor):
        kernel[first:first + 4] *= 0.02  # boxes near their anchors and cells: plausible sizes
        kernel[first + 5:first + per_anchor] *= 3  # peaked class scores
        kernel[first + 5:first + per_anchor] -= kernel[first + 5:first + per_anchor].mean(1, keepdims=True)
    return biases.astype("<f4").tobytes() + kernel.astype("<f4").tobytes()


def detections(net, x):
    net.setInput(x)
    out = net.forward("detection_out")
    rows = [(int(r), int(k), float(out[r, 5 + k])) for r, k in zip(*np.nonzero(out[:, 5:25]))]
    return out, rows


def main():
    work = Path(sys.argv[1])
    work.mkdir(parents=True, exist_ok=True)
    (work / "yolov2-tiny-voc.cfg").write_text(config())
    (work / "voc.txt").write_text("\n".join(VOC) + "\n")
    picture = cv2.resize(cv2.imread(str(ROOT / "Samples/face.png")), (416, 416), interpolation=cv2.INTER_LINEAR)
    cv2.imwrite(str(work / "picture.png"), picture)
    x = cv2.dnn.blobFromImage(picture, 1 / 255, swapRB=True)
    weights = work / "yolov2-tiny-voc.weights"
    # Lower the objectness until few boxes pass: 5 to 30 of them.
    for bias in np.arange(0, -40, -0.5):
        write_weights(weights, bias)
        net = cv2.dnn.readNetFromDarknet(str(work / "yolov2-tiny-voc.cfg"), str(weights))
        out, rows = detections(net, x)
        if 5 <= len(rows) <= 30:
            break
    else:
        sys.exit("make_yolo_voc: no objectness bias gives 5 to 30 boxes")
    boxes = [{"label": VOC[k], "confidence": s, "x": float(out[r, 0]), "y": float(out[r, 1]), "width": float(out[r, 2]),
              "height": float(out[r, 3])} for r, k, s in rows]
    (work / "opencv.json").write_text(json.dumps({"objectnessBias": float(bias), "thresh": THRESH, "nms": NMS, "boxes": boxes,
                                                  "versions": {"cv2": cv2.__version__, "numpy": np.__version__}}, indent=1) + "\n")
    print(f"make_yolo_voc: {len(boxes)} boxes from OpenCV at objectness bias {bias}: {sorted({b['label'] for b in boxes})}")


if __name__ == "__main__":
    main()
