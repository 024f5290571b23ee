#!/usr/bin/env bash
# Issue 20's YOLO case whole: yolov2-tiny-voc as Darknet publishes it, with
# generated weights (make_yolo_voc.py: 63 MB, not committed) and the VOC
# labels, converted to the pipeline Vision reads (YOLO.mlmodel, Darknet's
# thresholds 0.25 / 0.45), and again with OpenCV's (the cfg's thresh=.6,
# its region layer's NMS 0.4) for the comparison: coreml-predict's boxes on
# a 416x416 picture against OpenCV dnn's readNetFromDarknet
# (compare_detections.py), and --draw. With VALIDATOR (a program built by
# build_apple_validator.sh) also Core ML's own validation of both files.
# Not part of scripts/test (about a minute).
# Usage: [VALIDATOR=path] scripts/verify/yolo_voc.sh [WORK_DIR]   (after scripts/bootstrap --fixtures)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/yolo_voc}"
python="$root/.venv/bin/python"
cd "$root"
swift build -c release >/dev/null
[ -f "$work/opencv.json" ] || "$python" scripts/verify/make_yolo_voc.py "$work"
bin=.build/release
$bin/coreml-convert darknet "$work/yolov2-tiny-voc.cfg" "$work/yolov2-tiny-voc.weights" --class-labels "$work/voc.txt" \
  -o "$work/YOLO.mlmodel" | grep -E "^(Format|Kind|Detector|Labels|Parameters):"
$bin/coreml-convert darknet "$work/yolov2-tiny-voc.cfg" "$work/yolov2-tiny-voc.weights" --class-labels "$work/voc.txt" \
  --confidence-threshold 0.6 --iou-threshold 0.4 -o "$work/YOLO-opencv.mlmodel" -q
$bin/coreml-predict "$work/YOLO-opencv.mlmodel" "$work/picture.png" --json > "$work/predict.json"
failed=0
"$python" scripts/verify/compare_detections.py "$work/predict.json" "$work/opencv.json" 416 416 || failed=1
$bin/coreml-predict "$work/YOLO.mlmodel" "$work/picture.png" --draw "$work/boxes.png" > "$work/predict.txt"
head -8 "$work/predict.txt"
echo "... drew $work/boxes.png"
if [ -n "${VALIDATOR:-}" ]; then
  "$VALIDATOR" "$work/YOLO.mlmodel" "$work/YOLO-opencv.mlmodel" | tee "$work/validator.txt"
  grep -q "^INVALID" "$work/validator.txt" && failed=1
fi
exit $failed
