#!/usr/bin/env bash
# Compressed ML Programs (issue 36), checked by readers that are not ours:
#   coreml-convert ... --convert-to mlprogram --quantize-weights BITS --quantization MODE
# writes the constants of 2048 values or more as iOS 16's constexpr_affine_dequantize (8-bit linear,
# linear-symmetric) or constexpr_lut_to_dense (linear-lut, kmeans-lut: 1, 2, 4, 6, 8 bits), specification 7,
# opset CoreML6. For each model, mode and compute precision:
#   1. check_package: Apple's validator; coremltools 9's MIL-proto loader with every op's type inference (the
#      iOS16 constexpr definitions included); Core ML's MIL blob reader (uint8 levels, float tables and scales)
#      and coremltools' blob writer (same bytes); check_mlprogram.py --weight-stats: each compressed constant as
#      coremltools decompresses it has the count, range, mean and deviation our reader read;
#   2. run_mlprogram_torch.py: the program as coremltools loads it, its constants decompressed by coremltools'
#      op definitions and every operation run on PyTorch, against coreml-predict's output of the same package
#      (1e-4 * max(1, |ref|) at float32; the float16 bound run_mlprogram_torch.py states at float16).
# The fidelity to the float model is the converter's own report (printed without -q); not judged here.
# TARGET=iOS17 writes the packages for iOS 17 (specification 8, opset CoreML7; the loader then checks each operation by
# that opset's definitions); the default is the writer's (iOS 16 for compressed weights). TARGET=iOS18 writes iOS 18's
# forms (specification 9: constexpr_blockwise_shift_scale with int8, uint8, int4 or uint4 levels; constexpr_lut_to_dense
# with uint1-uint8 indices and a table per block) and adds the modes only they hold: 4-bit linear and linear-symmetric,
# 3-bit tables, scales per block of 32 input values (--block-size 32), tables per 16 or 32 output channels (--group-size).
# Not part of scripts/test: it needs a coremltools source checkout (MILBlob), g++ and torch. A few minutes.
# Usage: [TARGET=iOS17] scripts/verify/mlprogram_compressed.sh [COREMLTOOLS_SRC] [VALIDATOR] [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source_dir="${1:-/tmp/cmt}"
validator="${2:-/tmp/validator/bin/validate-mlmodel}"
work="${3:-/tmp/mlprogram_compressed}"
python="$root/.venv/bin/python"
fixtures="$root/Tests/Fixtures"
cd "$root"
mkdir -p "$work"

source scripts/verify/mlprogram_checks.sh
prepare_package_checks "$source_dir"
swift build >/dev/null
bin="$(swift build --show-bin-path)"
[ -f "$work/agefull/output_prob.npy" ] || "$python" scripts/fixtures/make_caffe_fixtures.py --full-size "$work/agefull" >/dev/null

failures=0
packages=0
target=()
[ -n "${TARGET:-}" ] && target=(--minimum-deployment-target "$TARGET")
modes=(linear:8 linear-symmetric:8 kmeans-lut:4 linear-lut:2 kmeans-lut:6 linear-lut:1 kmeans-lut:8)
if [ "${TARGET:-}" = iOS18 ]; then
  modes+=(linear:4 linear-symmetric:4 linear-symmetric:4:--block-size=32 linear:8:--block-size=32 kmeans-lut:3 \
          kmeans-lut:4:--group-size=16 linear-lut:2:--group-size=32)
fi
# check NAME INPUT [--bgr] -- CONVERT ARGUMENTS...: every mode at both precisions.
check() {
  local name="$1" input="$2" bgr=""
  shift 2
  [ "$1" = "--bgr" ] && { bgr="--bgr"; shift; }
  shift  # --
  local entry mode bits size precision sizing
  for entry in "${modes[@]}"; do
    # MODE:BITS[:--block-size=N or --group-size=N]
    IFS=: read -r mode bits size <<< "$entry"
    sizing=()
    [ -n "$size" ] && sizing=("${size%=*}" "${size#*=}")
    for precision in float32 float16; do
      # age_net's 1-bit palette (every weight +-its tensor's largest) overflows float16 activations: NaN in coreml-predict
      # and on PyTorch alike (seen 2026-12-07), nothing to compare.
      [ "$mode$bits.$precision" = "linear-lut1.float16" ] && continue
      local stem="$work/$name.$mode$bits${size:+.${size#--}}.$precision"
      local package="$stem.mlpackage"
      echo "== $name --quantize-weights $bits --quantization $mode ${sizing[*]} --compute-precision $precision"
      rm -rf "$package"
      "$bin/coreml-convert" "$@" --convert-to mlprogram --compute-precision "$precision" --quantize-weights "$bits" \
        --quantization "$mode" "${sizing[@]}" "${target[@]}" -q -o "$package"
      packages=$((packages + 1))
      "$bin/coreml-inspect" "$package" --weight-stats --json > "$stem.stats.json"
      check_package "$package" "$stem" --weight-stats "$stem.stats.json"
      rm -rf "$stem.out"
      "$bin/coreml-predict" "$package" "$input" --output-npy "$stem.out" >/dev/null
      local output
      output="$(cd "$stem.out" && ls *.npy | head -1)"
      "$python" scripts/verify/run_mlprogram_torch.py "$package" "$input" "$stem.out/$output" $bgr > "$stem.torch" 2>&1 \
        || failures=$((failures + 1))
      quiet < "$stem.torch"
    done
  done
}

age_biases=(--red-bias -114.895847746 --green-bias -87.7689143744 --blue-bias -78.4263377603)
check age_net_full "$work/agefull/face.png" --bgr -- \
  caffe "$work/agefull/deploy_age.prototxt" "$work/agefull/age_net.caffemodel" --image-input data --is-bgr "${age_biases[@]}" \
  --class-labels "$work/agefull/age_labels.txt"
age="$fixtures/caffe/age_net_v1"
check age_net_v1 "$age/input.png" --bgr -- \
  caffe "$age/deploy.prototxt" "$age/weights.caffemodel" --image-input data --is-bgr "${age_biases[@]}" --class-labels "$age/labels.txt"

echo "mlprogram_compressed: $packages packages, $failures failures"
[ "$failures" -eq 0 ]
