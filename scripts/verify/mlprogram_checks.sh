# Sourced by the ML Program verify scripts (mlprogram.sh, mlprogram_tensors.sh, mlprogram_detectors.sh): the checks of
# one package by readers that are not ours. Expects root, python, work and validator set and a failures count, and
# $work/milblob_dump built (prepare_package_checks builds it).

# Lines of Python's and TensorFlow's start-up chatter left out of the scripts' output.
quiet() { grep -v -E "^(I0000|WARNING|Failed to load|Running MIL)|has not been tested|rebuild TensorFlow|To enable the following|scikit-learn version" || true; }

# prepare_package_checks COREMLTOOLS_SRC: builds Core ML's MIL blob reader (milblob_dump) into $work.
prepare_package_checks() {
  "$root/scripts/verify/build_milblob_dump.sh" "$1" "$work/milblob_dump"
}

# check_package PACKAGE STEM [REFERENCE.mlmodel]: Core ML's MIL blob reader reads the weight file (STEM.blobs);
# check_mlprogram.py (coremltools' loader with type inference, the blobs, REFERENCE's weights) writes STEM.check;
# Apple's validator judges the package's model.mlmodel (when $validator is a program). Each failure is counted.
check_package() {
  local package="$1" stem="$2" reference=("${@:3}")
  "$work/milblob_dump" "$package/Data/com.apple.CoreML/weights/weight.bin" > "$stem.blobs"
  "$python" "$root/scripts/verify/check_mlprogram.py" "$package" "$stem.blobs" "${reference[@]}" > "$stem.check" 2>&1 \
    || failures=$((failures + 1))
  quiet < "$stem.check"
  if [ -x "$validator" ]; then
    local verdict
    verdict="$("$validator" "$package/Data/com.apple.CoreML/model.mlmodel" 2>&1 || true)"
    case "$verdict" in
      "OK "*) echo "Apple's validator: OK" ;;
      *) echo "Apple's validator: $verdict"; failures=$((failures + 1)) ;;
    esac
  fi
}

# check_packages LIST PACKAGE...: each package's weight file read by milblob_dump, Apple's validator (when $validator
# is a program) on each, and check_mlprogram.py --each over all of them (coremltools loaded once); LIST is the file
# it writes. Prints the validator's count and each failure; a failure of any counts one.
check_packages() {
  local list="$1" package stem verdict validated=0
  shift
  : > "$list"
  for package in "$@"; do
    stem="${package%.mlpackage}"
    "$work/milblob_dump" "$package/Data/com.apple.CoreML/weights/weight.bin" > "$stem.blobs"
    echo "$package $stem.blobs" >> "$list"
    if [ -x "$validator" ]; then
      verdict="$("$validator" "$package/Data/com.apple.CoreML/model.mlmodel" 2>&1 || true)"
      case "$verdict" in
        "OK "*) validated=$((validated + 1)) ;;
        *) echo "Apple's validator on $package: $verdict"; failures=$((failures + 1)) ;;
      esac
    fi
  done
  [ -x "$validator" ] && echo "Apple's validator: $validated of $(wc -l < "$list") packages OK"
  "$python" "$root/scripts/verify/check_mlprogram.py" --each "$list" 2>&1 | quiet | grep -v "^ok " || failures=$((failures + 1))
}
