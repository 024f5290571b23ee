#!/usr/bin/env bash
# The first case users bring, at full size: age_net (96/256/384 channels, fc
# 512/512/8, ~45 MB of generated weights) in Caffe's legacy V1 format,
# converted with its labels exactly as the README converts the small sample,
# run on the face image, and compared with OpenCV dnn's probabilities for the
# same files (compare_outputs.py). Not part of scripts/test (the weights are
# generated, not committed; about half a minute).
# Usage: scripts/verify/age_net.sh [WORK_DIR]   (after scripts/bootstrap --fixtures)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/age_net_full}"
python="$root/.venv/bin/python"
cd "$root"
swift build -c release >/dev/null
[ -f "$work/output_prob.npy" ] || "$python" scripts/fixtures/make_caffe_fixtures.py --full-size "$work" >/dev/null
.build/release/coreml-convert caffe "$work/deploy_age.prototxt" "$work/age_net.caffemodel" --image-input data --is-bgr \
  --red-bias -114.895847746 --green-bias -87.7689143744 --blue-bias -78.4263377603 \
  --class-labels "$work/age_labels.txt" -o "$work/AgeNet.mlmodel" | grep -E "^(Labels|Layers|Parameters):"
.build/release/coreml-predict "$work/AgeNet.mlmodel" "$work/face.png" --max-results 2
rm -rf "$work/ours" && .build/release/coreml-predict "$work/AgeNet.mlmodel" "$work/face.png" --output-npy "$work/ours" >/dev/null
"$python" scripts/verify/compare_outputs.py "$work/ours/classLabelProbs.npy=$work/output_prob.npy"
