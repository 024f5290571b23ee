#!/usr/bin/env bash
# Issue 36, every attribute sweep case as an ML Program, judged by readers that are not ours: the suite's
# ProgramSweepTests (Caffe, TensorFlow, ONNX, Darknet, Keras) write each case's packages at float32 and float16
# compute and check them against the framework's outputs; here the packages are kept (ATTRIBUTE_SWEEP_PACKAGES) and
# each is checked as mlprogram.sh checks one: Core ML's MIL blob reader (milblob_dump) reads its weight file,
# check_mlprogram.py --each (coremltools 9 opens it, its MIL-proto loader builds every operation with type inference
# and the declared types and shapes must be what it infers, every blob read back identical) and Apple's validator
# (given a VALIDATOR).
# SPECIFICATION=7 or 8 writes the packages for iOS 16 or 17 (opsets CoreML6, CoreML7; coremltools' loader then
# type-checks each operation by that opset's definitions); the default is 6 (iOS 15).
# Not part of scripts/test: it needs a coremltools source checkout and takes some minutes.
# Usage: [SPECIFICATION=N] scripts/verify/mlprogram_sweep.sh [COREMLTOOLS_SRC] [VALIDATOR] [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source_dir="${1:-/tmp/cmt}"
validator="${2:-/tmp/validator/bin/validate-mlmodel}"
work="${3:-/tmp/mlprogram_sweep}"
python="$root/.venv/bin/python"
cd "$root"
rm -rf "$work/packages"
mkdir -p "$work/packages"
source scripts/verify/mlprogram_checks.sh
prepare_package_checks "$source_dir"
swift build --build-tests >/dev/null
ATTRIBUTE_SWEEP_PACKAGES="$work/packages" ATTRIBUTE_SWEEP_PROGRAM_SPECIFICATION="${SPECIFICATION:-6}" swift test --skip-build --disable-swift-testing --filter ProgramSweepTests 2>&1 \
  | grep -E "^attribute sweep|error:|Executed .* tests" || true
failures=0
check_packages "$work/list" "$work"/packages/*/*.mlpackage
echo "mlprogram_sweep: $failures failure(s)"
[ "$failures" = 0 ]
