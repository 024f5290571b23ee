#!/usr/bin/env bash
# BVLC GoogLeNet and SqueezeNet v1.1 as their deploy files ship them (an
# Input layer for batch 10, param and filler blocks, in-place ReLUs), with
# generated weights (make_bvlc_caffe.py: 28 MB and 5 MB, not committed):
# each is converted with the ImageNet mean as BGR biases, the summary must
# say the batch was taken as one image, the runtime runs it on the image,
# and compare_outputs.py compares its 1000 probabilities with OpenCV dnn's
# for the same files. Not part of scripts/test (about half a minute).
# Usage: scripts/verify/bvlc_caffe.sh [WORK_DIR]   (after scripts/bootstrap --fixtures)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/bvlc_caffe}"
python="$root/.venv/bin/python"
cd "$root"
swift build -c release >/dev/null
[ -f "$work/squeezenet_v1.1/output_prob.npy" ] || "$python" scripts/verify/make_bvlc_caffe.py "$work"
failed=0
for net in bvlc_googlenet squeezenet_v1.1; do
  dir="$work/$net"
  echo "== $net"
  summary="$(.build/release/coreml-convert caffe "$dir/deploy.prototxt" "$dir/weights.caffemodel" --image-input data --is-bgr \
    --red-bias -123 --green-bias -117 --blue-bias -104 -o "$dir/$net.mlmodel")" || { failed=1; continue; }
  grep -E "^(Layers|Parameters|Batch):" <<< "$summary"
  grep -q "^Batch: *data: declared for 10 images; converted for one" <<< "$summary" || { echo "$net: no batch note"; failed=1; }
  rm -rf "$dir/ours" && .build/release/coreml-predict "$dir/$net.mlmodel" "$dir/input.png" --output-npy "$dir/ours" >/dev/null
  "$python" scripts/verify/compare_outputs.py "$dir/ours/prob.npy=$dir/output_prob.npy" || failed=1
done
exit $failed
