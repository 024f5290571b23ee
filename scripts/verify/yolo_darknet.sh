#!/usr/bin/env bash
# Issue 35's Darknet case: YOLOv3-tiny and YOLOv4-tiny as Darknet publishes
# them (AlexeyAB/darknet's cfg text), with generated weights
# (make_yolo_darknet.py: 35 and 24 MB, not committed) and the COCO labels,
# converted to the pipeline Vision reads at Darknet's thresholds (0.25 /
# 0.45, suppression per class): coreml-predict's boxes on a 416x416 picture
# against OpenCV dnn's readNetFromDarknet (its [yolo] rows through
# NMSBoxesBatched at the same thresholds; compare_detections.py: same
# labels, confidences and corners within 1e-4), 25 or more boxes each, and
# --draw. With VALIDATOR (a program built by build_apple_validator.sh) also
# Core ML's own validation of both files. Not part of scripts/test.
# Usage: [VALIDATOR=path] scripts/verify/yolo_darknet.sh [WORK_DIR]   (after scripts/bootstrap --fixtures)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/yolo_darknet}"
python="$root/.venv/bin/python"
cd "$root"
swift build -c release >/dev/null
[ -f "$work/yolov4-tiny.opencv.json" ] || "$python" scripts/verify/make_yolo_darknet.py "$work"
bin=.build/release
failed=0
for name in yolov3-tiny yolov4-tiny; do
  echo "== $name"
  $bin/coreml-convert darknet "$work/$name.cfg" "$work/$name.weights" --class-labels "$work/coco.txt" \
    -o "$work/$name.mlmodel" | grep -E "^(Format|Kind|Detector|Labels|Parameters):"
  $bin/coreml-predict "$work/$name.mlmodel" "$work/picture.png" --json > "$work/$name.predict.json"
  "$python" scripts/verify/compare_detections.py "$work/$name.predict.json" "$work/$name.opencv.json" 416 416 || failed=1
  boxes=$("$python" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))[0]["detections"]))' "$work/$name.predict.json")
  [ "$boxes" -ge 25 ] || { echo "$name: $boxes boxes, fewer than 25"; failed=1; }
  $bin/coreml-predict "$work/$name.mlmodel" "$work/picture.png" --draw "$work/$name.boxes.png" > "$work/$name.predict.txt"
  head -4 "$work/$name.predict.txt"
  echo "... drew $work/$name.boxes.png"
done
if [ -n "${VALIDATOR:-}" ]; then
  "$VALIDATOR" "$work/yolov3-tiny.mlmodel" "$work/yolov4-tiny.mlmodel" | tee "$work/validator.txt"
  grep -q "^INVALID" "$work/validator.txt" && failed=1
fi
exit $failed
