#!/usr/bin/env bash
# torchvision's classifiers (resnet18, mobilenet_v3_small, efficientnet_b0,
# squeezenet1_1, densenet121, convnext_tiny and shufflenet_v2_x0_5 at 64x64),
# a segmentation head and a reduced ViT,
# exported by PyTorch at two opsets each (and resnet18 through the dynamo
# exporter, weights in an external data file), converted with
# coreml-convert onnx and run with coreml-predict; each output compared
# with onnxruntime's on the same file: |ours - ref| <= 1e-4 * max(1, |ref|).
# Random weights (seeded); ~120 MB of models in WORK (default /tmp/onnx_torchvision).
# Prints one line per file and a summary; exits 1 if any file fails.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/onnx_torchvision}"
python="$root/.venv/bin/python"
mkdir -p "$work"
"$python" "$root/scripts/verify/make_onnx_torchvision.py" "$work" >"$work/export.log" 2>&1 || { tail -5 "$work/export.log"; exit 1; }
swift build -c release --package-path "$root" --product coreml-convert >/dev/null && swift build -c release --package-path "$root" --product coreml-predict >/dev/null
bin="$root/.build/release"
passed=0 failed=0
for folder in "$work"/*_opset*; do
    name="$(basename "$folder")"
    rm -rf "$folder/ours" && mkdir -p "$folder/ours"
    start=$(date +%s.%N)
    if ! "$bin/coreml-convert" onnx "$folder/model.onnx" -o "$folder/model.mlmodel" -q 2>"$folder/convert.err"; then
        echo "$name: FAIL convert: $(head -c 400 "$folder/convert.err")"; failed=$((failed + 1)); continue
    fi
    seconds=$(echo "$(date +%s.%N) - $start" | bc)
    if ! "$bin/coreml-predict" "$folder/model.mlmodel" --input "input=$folder/input.npy" --output-npy "$folder/ours" >/dev/null 2>"$folder/predict.err"; then
        echo "$name: FAIL predict: $(head -c 300 "$folder/predict.err")"; failed=$((failed + 1)); continue
    fi
    if "$python" - "$folder" "$seconds" <<'PY'
import sys, glob, numpy as np
folder, seconds = sys.argv[1], float(sys.argv[2])
ours = np.load(glob.glob(folder + "/ours/*.npy")[0]).reshape(-1)
ref = np.load(folder + "/output.npy").reshape(-1)
excess = (np.abs(ours - ref) - 1e-4 * np.maximum(1, np.abs(ref))).max() if ours.size == ref.size else np.inf
print(f"{folder.rsplit('/', 1)[1]}: {'ok' if excess <= 0 else 'FAIL'}  max |diff| {np.abs(ours - ref).max() if ours.size == ref.size else 'size'}  "
      f"(max |ref| {np.abs(ref).max():.3g})  converted in {seconds:.2f} s")
sys.exit(0 if excess <= 0 else 1)
PY
    then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "onnx_torchvision: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
