#!/usr/bin/env python3
"""Issue 35's ONNX detectors at full size: a YOLOv5s-layout and a
YOLOv8n-layout network (scripts/fixtures/yolo_torch.py: 80 classes, 640 x
640, generated weights: batch norms calibrated on twelve generated pictures, the
class bias chosen for about 150 boxes above the threshold on the median one,
the three pictures nearest that kept; the exporters' in-graph decoding), exported by
PyTorch's TorchScript exporter as Ultralytics' `export(format="onnx")` does
(yolov5 at opset 12, its exporter's default, and 17; yolov8 at 17), and for
each of three 640 x 640 pictures the boxes Core ML's pipeline must give:
onnxruntime's raw output decoded as the layout defines and suppressed as
Core ML's NonMaximumSuppression specifies (make_darknet_fixtures.nms: per
class; IoU 0.45 for yolov5, 0.7 for yolov8; confidence 0.25).

Also the first picture's middle 640 x 400 (NAME_wide.png, NAME_wide.json),
letterboxed on black as Vision's scaleFit does, its boxes in fractions of
that picture: what `coreml-predict --crop-and-scale scaleFit` must map back.

Writes into WORK: coco.txt (80 labels), and per model NAME.onnx, its three
pictures NAME_picture1-3.png and NAME_pictureK.json ({"boxes": [{label, confidence, x, y, width, height}]},
fractions of the picture, as compare_detections.py reads).

Usage: .venv/bin/python scripts/verify/make_yolo_onnx.py WORK   (after scripts/bootstrap --fixtures)
"""
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime
import torch
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "fixtures"))
from make_darknet_fixtures import nms  # noqa: E402
from make_onnx_yolo_fixtures import decode  # noqa: E402
import yolo_torch  # noqa: E402

SIZE, CONFIDENCE = 640, 0.25
MODELS = (("yolov5s_opset12", "yolov5", 12), ("yolov5s_opset17", "yolov5", 17), ("yolov8n_opset17", "yolov8", 17))
IOU = {"yolov5": 0.45, "yolov8": 0.7}


def picture(seed):
    """Sky and ground gradients with discs and rectangles of random colours."""
    rng = np.random.default_rng(100 + seed)
    ys, xs = np.mgrid[0:SIZE, 0:SIZE] / SIZE
    image = np.stack([90 + 100 * xs, 140 + 60 * ys, 220 - 120 * ys], 2)
    for _ in range(40):
        cx, cy, r = rng.integers(20, SIZE - 20), rng.integers(20, SIZE - 20), rng.integers(10, 60)
        colour = rng.integers(0, 256, 3)
        if rng.random() < 0.5:
            image[(xs * SIZE - cx) ** 2 + (ys * SIZE - cy) ** 2 < r * r] = colour
        else:
            image[max(0, cy - r):cy + r, max(0, cx - r // 2):cx + r // 2] = colour
    return np.clip(np.round(image), 0, 255).astype(np.uint8)


def letterboxed(session, name, layout, pixels, labels, work):
    """NAME_wide.png, the middle 640 x 400 of the first picture, and
    NAME_wide.json: onnxruntime on it letterboxed as Vision's scaleFit lays
    it out at scale 1 (120 black rows above and below), the kept boxes in
    fractions of the 640 x 400 picture."""
    wide = pixels[120:520]
    Image.fromarray(wide).save(work / f"{name}_wide.png")
    padded = np.zeros_like(pixels)
    padded[120:520] = wide
    x = (padded.astype(np.float32) / np.float32(255)).transpose(2, 0, 1)[None].copy()
    coordinates, confidence = decode(layout, session.run(None, {"images": x})[0], SIZE)
    kept = nms(coordinates, confidence, IOU[layout], CONFIDENCE, per_class=True)
    boxes = [{"label": labels[int(confidence[i].argmax())], "confidence": float(confidence[i].max()),
              "x": float(coordinates[i, 0]), "y": float((coordinates[i, 1] * SIZE - 120) / 400), "width": float(coordinates[i, 2]),
              "height": float(coordinates[i, 3] * SIZE / 400)} for i in kept]
    (work / f"{name}_wide.json").write_text(json.dumps({"boxes": boxes}, indent=1) + "\n")
    print(f"make_yolo_onnx: {name} wide picture letterboxed: {len(kept)} kept")


def main(work):
    work.mkdir(parents=True, exist_ok=True)
    labels = [f"class{k}" for k in range(80)]
    (work / "coco.txt").write_text("\n".join(labels) + "\n")
    candidates = [picture(k) for k in range(12)]
    tensors = [torch.from_numpy((p.astype(np.float32) / np.float32(255)).transpose(2, 0, 1)[None].copy()) for p in candidates]
    for index, (name, layout, opset) in enumerate(MODELS):
        torch.manual_seed(index)
        build = yolo_torch.YOLOv5 if layout == "yolov5" else yolo_torch.YOLOv8
        model = yolo_torch.randomize(build(size=SIZE), torch.cat(tensors), index, 0.0)
        # A random network's scores shift with each picture as a whole: the class bias gives the median of
        # twelve pictures about 150 boxes above the threshold, and the three pictures nearest that are used.
        counts = yolo_torch.tune_class_bias(model, tensors, CONFIDENCE, 150)
        chosen = sorted(range(len(counts)), key=lambda k: abs(np.log((counts[k] + 1) / 151)))[:3]
        pictures = [tensors[k] for k in chosen]
        for k, chosen_index in enumerate(chosen):
            Image.fromarray(candidates[chosen_index]).save(work / f"{name}_picture{k + 1}.png")
        path = work / f"{name}.onnx"
        torch.onnx.export(model, (pictures[0],), str(path), opset_version=opset, dynamo=False, input_names=["images"], output_names=["output0"])
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        for k, x in enumerate(pictures):
            raw = session.run(None, {"images": x.numpy()})[0]
            with torch.no_grad():
                reference = model(x).numpy()
            excess = (np.abs(raw - reference) / np.maximum(1, np.abs(reference))).max()
            # A cross-check of the export only (the reference is onnxruntime's): two float32 runtimes over ~60 layers.
            assert excess <= 1e-3, f"{name}: onnxruntime and PyTorch differ by {excess} relative"
            coordinates, confidence = decode(layout, raw, SIZE)
            kept = nms(coordinates, confidence, IOU[layout], CONFIDENCE, per_class=True)
            boxes = [{"label": labels[int(confidence[i].argmax())], "confidence": float(confidence[i].max()),
                      "x": float(coordinates[i, 0]), "y": float(coordinates[i, 1]), "width": float(coordinates[i, 2]),
                      "height": float(coordinates[i, 3])} for i in kept]
            (work / f"{name}_picture{k + 1}.json").write_text(json.dumps({"boxes": boxes}, indent=1) + "\n")
            above = int((confidence.max(1) >= CONFIDENCE).sum())
            print(f"make_yolo_onnx: {name} picture{k + 1}: output {raw.shape}, {above} boxes above {CONFIDENCE}, {len(kept)} kept "
                  f"(PyTorch within {excess:.1e} of onnxruntime)")
        letterboxed(session, name, layout, candidates[chosen[0]], labels, work)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_yolo_onnx.py WORK")
    main(Path(sys.argv[1]))
