#!/usr/bin/env bash
# Issue 20's SSD case whole: MobileNet-SSD as its deploy file lays it out,
# with generated weights (make_mobilenet_ssd.py: 23 MB, not committed) and
# the 21 VOC labels (the background's first), converted to the pipeline
# Vision reads with the deploy file's preprocessing ((BGR - 127.5) *
# 0.007843) and its DetectionOutput's thresholds (0.25, NMS 0.45), each
# class suppressed on its own as DetectionOutput does (--rows-per-class:
# a box may be kept under two labels, though none is on this picture at
# the background bias chosen), keep_top_k 100 as the output's cap,
# nms_param's top_k 100 not (--ignore-top-k: the picture's classes have
# fewer candidates than that, so OpenCV's boxes are the same); then
# coreml-predict's boxes on a 300x300 picture against OpenCV dnn's
# readNetFromCaffe running the same two files (compare_detections.py), and
# --draw. With VALIDATOR (a program built by build_apple_validator.sh) also
# Core ML's own validation. Not part of scripts/test (about half a minute).
# Usage: [VALIDATOR=path] scripts/verify/mobilenet_ssd.sh [WORK_DIR]   (after scripts/bootstrap --fixtures)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/mobilenet_ssd}"
python="$root/.venv/bin/python"
cd "$root"
swift build -c release >/dev/null
[ -f "$work/opencv.json" ] || "$python" scripts/verify/make_mobilenet_ssd.py "$work"
bin=.build/release
$bin/coreml-convert caffe "$work/mobilenet_ssd_deploy.prototxt" "$work/mobilenet_ssd.caffemodel" --class-labels "$work/voc.txt" \
  --image-input data --rows-per-class --ignore-top-k --is-bgr --image-scale 0.007843 --red-bias -0.9999825 --green-bias -0.9999825 --blue-bias -0.9999825 \
  -o "$work/Detector.mlmodel" | grep -E "^(Format|Kind|Detector|Labels|Parameters):"
$bin/coreml-predict "$work/Detector.mlmodel" "$work/picture.png" --json > "$work/predict.json"
failed=0
"$python" scripts/verify/compare_detections.py "$work/predict.json" "$work/opencv.json" 300 300 || failed=1
$bin/coreml-predict "$work/Detector.mlmodel" "$work/picture.png" --draw "$work/boxes.png" > "$work/predict.txt"
head -8 "$work/predict.txt"
echo "... drew $work/boxes.png"
if [ -n "${VALIDATOR:-}" ]; then
  "$VALIDATOR" "$work/Detector.mlmodel" | tee "$work/validator.txt"
  grep -q "^INVALID" "$work/validator.txt" && failed=1
fi
exit $failed
