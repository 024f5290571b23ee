#!/usr/bin/env bash
# Issue 36: every .mlmodel the suite writes, as ML Program packages (mlprogram_suite_models.py: written at float32
# and float16 compute, predicted as the .mlmodel on random inputs), then each package judged by readers that are not
# ours, as mlprogram_sweep.sh judges the sweep's: Core ML's MIL blob reader, coremltools' MIL-proto loader with type
# inference (check_mlprogram.py --each) and Apple's validator (given a VALIDATOR).
# Not part of scripts/test: run it after scripts/test (its models: .build/mlmodel-check), with a coremltools checkout.
# Usage: scripts/verify/mlprogram_suite_models.sh [MODELS_DIR] [COREMLTOOLS_SRC] [VALIDATOR] [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
models="${1:-$root/.build/mlmodel-check}"
source_dir="${2:-/tmp/cmt}"
validator="${3:-/tmp/validator/bin/validate-mlmodel}"
work="${4:-/tmp/mlprogram_suite_models}"
python="$root/.venv/bin/python"
cd "$root"
mkdir -p "$work"
source scripts/verify/mlprogram_checks.sh
prepare_package_checks "$source_dir"
failures=0
"$python" scripts/verify/mlprogram_suite_models.py "$models" "$work" | grep -v "^ok " || failures=$((failures + 1))
check_packages "$work/list" "$work"/*/*.mlpackage
echo "mlprogram_suite_models: $failures failure(s)"
[ "$failures" = 0 ]
