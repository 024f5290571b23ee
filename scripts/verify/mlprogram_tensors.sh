#!/usr/bin/env bash
# Issue 36, models with tensor (rank-N) inputs: torchvision's shufflenet_v2, convnext and a ViT as exported by
# make_onnx_torchvision.py, converted with
#   coreml-convert onnx model.onnx --convert-to mlprogram --compute-precision float32 -o M.mlpackage
# and each package checked as mlprogram.sh checks one: check_mlprogram.py (coremltools 9 opens it, its MIL-proto loader
# builds every operation with type inference, Core ML's MIL blob reader reads every weight back identical), Apple's
# validator (given a VALIDATOR), and coreml-predict's output (the package read back into the IR) against onnxruntime's
# output.npy at 1e-4 * max(1, |ref|) (compare_outputs.py).
# Not part of scripts/test: it needs the torchvision exports (make_onnx_torchvision.py) and a coremltools source checkout.
# Usage: scripts/verify/mlprogram_tensors.sh [TORCHVISION_DIR] [COREMLTOOLS_SRC] [VALIDATOR] [WORK_DIR] [all]
#   TORCHVISION_DIR  folders <name>/{model.onnx,input.npy,output.npy} (default /tmp/onnx_torchvision, where scripts/verify/onnx_torchvision.sh makes them)
#   all              every folder of TORCHVISION_DIR (all 19 of onnx_torchvision.sh's files), not only the six tensor models
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
models="${1:-/tmp/onnx_torchvision}"
source_dir="${2:-/tmp/cmt}"
validator="${3:-/tmp/validator/bin/validate-mlmodel}"
work="${4:-/tmp/mlprogram_tensors}"
python="$root/.venv/bin/python"
cd "$root"
mkdir -p "$work"
source scripts/verify/mlprogram_checks.sh
prepare_package_checks "$source_dir"
swift build >/dev/null
bin="$(swift build --show-bin-path)"
failures=0
names="shufflenet_v2_x0_5_opset13 shufflenet_v2_x0_5_opset17 convnext_tiny_opset13 convnext_tiny_opset17 vit_small_opset14 vit_small_opset17"
if [ "${5:-}" = all ]; then names="$(cd "$models" && ls -d *_opset* | tr '\n' ' ')"; fi
for name in $names; do
  folder="$models/$name"
  [ -f "$folder/model.onnx" ] || { echo "== $name: missing"; failures=$((failures + 1)); continue; }
  echo "== $name"
  package="$work/$name.mlpackage"
  if ! "$bin/coreml-convert" onnx "$folder/model.onnx" --convert-to mlprogram --compute-precision float32 -q -o "$package"; then
    failures=$((failures + 1)); continue
  fi
  check_package "$package" "$work/$name"
  rm -rf "$work/$name.out"
  "$bin/coreml-predict" "$package" --input "input=$folder/input.npy" --output-npy "$work/$name.out" >/dev/null
  "$python" scripts/verify/compare_outputs.py "$work/$name.out/output.npy=$folder/output.npy" || failures=$((failures + 1))
done
echo "mlprogram_tensors: $failures failure(s)"
[ "$failures" = 0 ]
