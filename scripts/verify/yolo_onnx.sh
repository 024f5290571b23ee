#!/usr/bin/env bash
# Issue 35's ONNX detectors whole: a YOLOv5s-layout network (opsets 12 and
# 17) and a YOLOv8n-layout one (opset 17), 640x640, 80 classes, generated
# weights (make_yolo_onnx.py; not committed), converted with
# `--detector yolov5|yolov8 --class-labels coco.txt` into the pipeline Vision
# reads; coreml-predict's boxes on three pictures each against numpy's
# decoding and Core ML suppression of onnxruntime's output on the same file
# (compare_detections.py: the same labels, confidences within 1e-4, corners
# within 1e-4 of the picture's size); a 640x400 picture letterboxed by
# --crop-and-scale scaleFit, its boxes mapped back, likewise; and --draw. Prints each conversion's
# seconds and peak memory. With VALIDATOR (a program built by
# build_apple_validator.sh) also Core ML's own validation of every file.
# Each model also as an ML Program package (`--convert-to mlprogram`: the
# same pipeline, the network a program): computing in float32, its boxes on
# the same pictures against the same numpy reference, as strictly; in
# float16, its boxes' differences from that reference, matched within the
# program's bound k * 2^-11, are printed (not failed: a box whose
# confidence or overlap is within that of a threshold may be kept or not).
# Not part of scripts/test (about six minutes, most of it making the models).
# Usage: [VALIDATOR=path] scripts/verify/yolo_onnx.sh [WORK_DIR]   (after scripts/bootstrap --fixtures)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/yolo_onnx}"
python="$root/.venv/bin/python"
cd "$root"
swift build -c release >/dev/null
[ -f "$work/yolov8n_opset17_wide.json" ] || "$python" scripts/verify/make_yolo_onnx.py "$work" 2>&1 | grep '^make_yolo_onnx'
bin=.build/release
failed=0
for name in yolov5s_opset12 yolov5s_opset17 yolov8n_opset17; do
  layout=${name%%_*}; layout=${layout%[sn]}
  /usr/bin/time -f "$name: converted in %e s, peak %M KiB" -o "$work/$name.time" \
    $bin/coreml-convert onnx "$work/$name.onnx" --detector "$layout" --class-labels "$work/coco.txt" -o "$work/$name.mlmodel" -q
  cat "$work/$name.time"
  for k in 1 2 3; do
    $bin/coreml-predict "$work/$name.mlmodel" "$work/${name}_picture$k.png" --json > "$work/${name}_predict$k.json"
    "$python" scripts/verify/compare_detections.py "$work/${name}_predict$k.json" "$work/${name}_picture$k.json" 640 640 numpy || failed=1
  done
  # Letterboxed: a 640x400 picture fitted on black (Vision's scaleFit), the boxes mapped back to it.
  $bin/coreml-predict "$work/$name.mlmodel" "$work/${name}_wide.png" --crop-and-scale scaleFit --json > "$work/${name}_predict_wide.json"
  "$python" scripts/verify/compare_detections.py "$work/${name}_predict_wide.json" "$work/${name}_wide.json" 640 400 numpy || failed=1
  $bin/coreml-predict "$work/$name.mlmodel" "$work/${name}_picture1.png" --draw "$work/${name}_boxes.png" | head -4
  echo "... drew $work/${name}_boxes.png"
  for precision in float32 float16; do
    package="$work/$name.$precision.mlpackage"
    /usr/bin/time -f "$name: converted to an ML program ($precision) in %e s, peak %M KiB" -o "$work/$name.$precision.time" \
      $bin/coreml-convert onnx "$work/$name.onnx" --detector "$layout" --class-labels "$work/coco.txt" \
      --convert-to mlprogram --compute-precision "$precision" -o "$package" -q
    cat "$work/$name.$precision.time"
    for k in 1 2 3 wide; do
      picture="$work/${name}_picture$k.png" reference="$work/${name}_picture$k.json" size=(640 640) fit=()
      [ "$k" = wide ] && { picture="$work/${name}_wide.png" reference="$work/${name}_wide.json" size=(640 400) fit=(--crop-and-scale scaleFit); }
      $bin/coreml-predict "$package" "$picture" "${fit[@]}" --json > "$work/${name}_${precision}_predict$k.json"
      if [ "$precision" = float32 ]; then
        "$python" scripts/verify/compare_detections.py "$work/${name}_${precision}_predict$k.json" "$reference" "${size[@]}" numpy || failed=1
      else
        # Matched within the program's stated float16 bound k * 2^-11 (k: its operations with float16 outputs; values <= 1).
        bound="$("$python" -c "
import sys, coremltools as ct
spec = ct.utils.load_spec(sys.argv[1]).pipeline.models[0]
block = spec.mlProgram.functions['main'].block_specializations['CoreML5']
print(sum(op.type != 'const' and op.outputs[0].type.tensorType.dataType == 10 for op in block.operations) * 2.0**-11)" "$package" 2>/dev/null)"
        echo "float16 (not failed), within $bound: $("$python" scripts/verify/compare_detections.py "$work/${name}_${precision}_predict$k.json" "$reference" "${size[@]}" numpy "$bound" | tail -1)"
      fi
    done
  done
done
if [ -n "${VALIDATOR:-}" ]; then
  "$VALIDATOR" "$work"/*.mlmodel "$work"/*.mlpackage/Data/com.apple.CoreML/model.mlmodel | tee "$work/validator.txt"
  grep -q "^INVALID" "$work/validator.txt" && failed=1
fi
exit $failed
