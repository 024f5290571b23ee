#!/usr/bin/env python3
"""Compares coreml-predict --json detections with OpenCV's (opencv.json from
make_yolo_voc.py): the same boxes, each with the same label, its
confidence within 1e-4 and its corners within 1e-4 of the picture's size.
Our boxes are in pixels (left, top, width, height), OpenCV's in fractions
(centre x, centre y, width, height).

Usage: compare_detections.py PREDICT.json OPENCV.json WIDTH HEIGHT [REFERENCE_NAME [TOLERANCE]]
(REFERENCE_NAME, default OpenCV, names the reference in the lines printed;
make_yolo_onnx.py's numpy reference uses the same file format. TOLERANCE,
default 1e-4, replaces both 1e-4s: a float16 program's stated bound.)
"""
import json
import sys


def corners(x, y, w, h):
    return (x - w / 2, y - h / 2, x + w / 2, y + h / 2)


def main(ours_path, opencv_path, width, height, name="OpenCV", tolerance=1e-4):
    ours = json.load(open(ours_path))[0]["detections"]
    theirs = json.load(open(opencv_path))["boxes"]
    unmatched = list(theirs)
    failures = 0
    for box in ours:
        b = box["box"]
        mine = (b["left"] / width, b["top"] / height, (b["left"] + b["width"]) / width, (b["top"] + b["height"]) / height)
        match = next((t for t in unmatched if t["label"] == box["label"]
                      and max(abs(p - q) for p, q in zip(mine, corners(t["x"], t["y"], t["width"], t["height"]))) <= tolerance), None)
        if match is None or abs(match["confidence"] - box["confidence"]) > tolerance:
            print(f"ours: {box['label']} {box['confidence']:.4f} at {[round(v, 4) for v in mine]}: {name} has no such box")
            failures += 1
        else:
            unmatched.remove(match)
    for t in unmatched:
        print(f"{name}: {t['label']} {t['confidence']:.4f} at {[round(v, 4) for v in corners(t['x'], t['y'], t['width'], t['height'])]}: not ours")
        failures += 1
    print(f"compare_detections: {len(ours)} boxes ours, {len(theirs)} {name}'s, {failures} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), *sys.argv[5:6], *map(float, sys.argv[6:7])))
