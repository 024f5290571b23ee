#!/usr/bin/env bash
# Issue 36's detectors, checked by readers that are not ours: the suite's
# detector fixtures (ONNX YOLOv5 and YOLOv8 exports, Caffe SSD, Darknet
# [yolo] heads with and without new_coords, Darknet YOLOv2 [region])
# converted with
#   coreml-convert ... --convert-to mlprogram --compute-precision float32|float16 -o M.mlpackage
# (a pipeline: the program, then non-maximum suppression) and, for each package:
#   1. check_mlprogram.py: coremltools 9 opens it, the pipeline's structure
#      (program, suppression, specification 6, float32 rows), its MIL-proto
#      loader rebuilds the program with type inference, Core ML's MILBlob
#      reader reads every weight back identical, every weight bit-identical
#      to the NeuralNetwork .mlmodel's of the same conversion;
#   2. Apple's validator (VALIDATOR, built by build_apple_validator.sh)
#      accepts the package's model.mlmodel (given a VALIDATOR only);
#   3. run_mlprogram_torch.py: the program as coremltools loaded it, run op by
#      op on PyTorch, gives the rows the framework's decoding gives
#      (onnxruntime's output read by numpy; OpenCV's SSD blobs and Darknet
#      [yolo] layers decoded by numpy: the fixtures' decoded_*.npy) to
#      1e-4 * max(1, |ref|), or in float16 within its stated bound;
#   4. coreml-predict's boxes kept by the package (float32) against the
#      fixture's numpy decoding and Core ML suppression (ONNX, YOLOv2).
# Not part of scripts/test: it needs a coremltools source checkout (MILBlob),
# g++ and torch. About a minute.
# Usage: scripts/verify/mlprogram_detectors.sh [COREMLTOOLS_SRC] [VALIDATOR] [WORK_DIR]
#   COREMLTOOLS_SRC  an apple/coremltools checkout (default /tmp/cmt)
#   VALIDATOR        validate-mlmodel (default /tmp/validator/bin/validate-mlmodel, skipped if absent)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source_dir="${1:-/tmp/cmt}"
validator="${2:-/tmp/validator/bin/validate-mlmodel}"
work="${3:-/tmp/mlprogram_detectors}"
python="$root/.venv/bin/python"
fixtures="$root/Tests/Fixtures"
cd "$root"
mkdir -p "$work"

source scripts/verify/mlprogram_checks.sh
prepare_package_checks "$source_dir"
swift build >/dev/null
bin="$(swift build --show-bin-path)"
failures=0
# check NAME INPUT ROWS_FOLDER KEPT_PREFIX -- CONVERT ARGUMENTS...
#   INPUT: a PNG, or a [C, H, W] .npy of the image input's pixels (or an array input's values);
#   ROWS_FOLDER: holds decoded_confidence.npy and decoded_coordinates.npy ("" for none);
#   KEPT_PREFIX: PREFIX_confidence.npy and PREFIX_coordinates.npy, the boxes kept ("" for none).
check() {
  local name="$1" input="$2" rows="$3" kept="$4"
  shift 5
  echo "== $name"
  "$bin/coreml-convert" "$@" -q -o "$work/$name.mlmodel"
  local given=("$input")
  if [ "${input%.npy}" != "$input" ]; then
    given=(--input "$("$python" -c "import sys, coremltools as ct; print(ct.utils.load_spec(sys.argv[1]).description.input[0].name)" "$work/$name.mlmodel" 2>/dev/null)=$input")
  fi
  local precision
  for precision in float32 float16; do
    local stem="$work/$name.$precision" package="$work/$name.$precision.mlpackage"
    echo "-- --compute-precision $precision"
    "$bin/coreml-convert" "$@" --convert-to mlprogram --compute-precision "$precision" -q -o "$package"
    check_package "$package" "$stem" "$work/$name.mlmodel"
    if [ -n "$rows" ]; then
      local row
      for row in confidence coordinates; do
        "$python" scripts/verify/run_mlprogram_torch.py "$package" "$input" "$rows/decoded_$row.npy" --output "raw_$row" > "$stem.torch" 2>&1 \
          || failures=$((failures + 1))
        quiet < "$stem.torch"
      done
    fi
    if [ -n "$kept" ] && [ "$precision" = float32 ]; then
      rm -rf "$stem.out"
      "$bin/coreml-predict" "$package" "${given[@]}" --output-npy "$stem.out" >/dev/null
      "$python" scripts/verify/compare_outputs.py "$stem.out/confidence.npy=${kept}_confidence.npy" \
        "$stem.out/coordinates.npy=${kept}_coordinates.npy" || failures=$((failures + 1))
    fi
  done
}

# The exports' 64x64 pictures as PNGs.
for layout in yolov5 yolov8; do
  "$python" -c "import sys, numpy as np; from PIL import Image; Image.fromarray(np.load(sys.argv[1]).astype(np.uint8)).save(sys.argv[2])" \
    "$fixtures/onnx/${layout}_detector/pixels.npy" "$work/$layout.png"
  folder="$fixtures/onnx/${layout}_detector"
  check "onnx_$layout" "$work/$layout.png" "$folder" "$folder/kept" -- \
    onnx "$folder/model.onnx" --detector "$layout" --class-labels "$folder/labels.txt"
done
ssd="$fixtures/caffe/ssd"
check caffe_ssd "$ssd/detect_0_input.npy" "$ssd" "" -- caffe "$ssd/deploy.prototxt" "$ssd/weights.caffemodel" --ignore-top-k
# The [yolo] fixtures' inputs are pixels / 255: the image input's pixels are them times 255.
for name in yolo_heads yolo_new_coords; do
  "$python" -c "import sys, numpy as np; np.save(sys.argv[2], (np.load(sys.argv[1]) * 255).astype(np.float32))" \
    "$fixtures/darknet/$name/input.npy" "$work/${name}_pixels.npy"
  check "darknet_$name" "$work/${name}_pixels.npy" "$fixtures/darknet/$name" "" -- \
    darknet "$fixtures/darknet/$name/model.cfg" "$fixtures/darknet/$name/model.weights"
done
region="$fixtures/darknet/detector"
check darknet_region "$region/detect_0.png" "" "$region/detect_0" -- \
  darknet "$region/model.cfg" "$region/model.weights" --iou-threshold 0.4 --confidence-threshold 0.2

echo "mlprogram_detectors: $failures failure(s)"
[ "$failures" = 0 ]
