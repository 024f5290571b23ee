#!/usr/bin/env bash
# Builds the VALIDATOR that scripts/verify/apple_validator.sh takes: Core ML's
# own validator (apple/coremltools, mlmodel/src, CoreML::Model::load, which
# validates) with a small command-line main, from a coremltools source tree
# you provide (this repository does not carry Apple's code; CI does not run
# this). Needs cmake (scripts/bootstrap --fixtures installs it), make, g++ and python3 with setuptools (configuring
# coremltools builds its deps/kmeans1d in the source tree); uses the tree's
# vendored protobuf (deps/protobuf). About 8 minutes on 2 cores.
#
# Usage: scripts/verify/build_apple_validator.sh COREMLTOOLS_SRC OUTDIR
#   COREMLTOOLS_SRC  a checkout of https://github.com/apple/coremltools
#   OUTDIR           gets build/ (CMake), src/main.cpp and bin/validate-mlmodel
# validate-mlmodel FILE... prints "OK <file>" or "INVALID <file>: <message>"
# for each file and exits 0 (2 on wrong usage).
set -euo pipefail
usage="usage: scripts/verify/build_apple_validator.sh COREMLTOOLS_SRC OUTDIR"
src="$(cd "${1:?$usage}" && pwd)"
out="${2:?$usage}"
[ -f "$src/mlmodel/src/Model.hpp" ] || { echo "build-apple-validator: $src is not a coremltools source tree" >&2; exit 2; }
mkdir -p "$out/build" "$out/src" "$out/bin"
out="$(cd "$out" && pwd)"

cmake -S "$src" -B "$out/build" -DCMAKE_BUILD_TYPE=Release
make -C "$out/build" -j"${JOBS:-2}" mlmodel

cat >"$out/src/main.cpp" <<'EOF'
// validate-mlmodel FILE...: one line per file, "OK <file>" when
// CoreML::Model::load (which validates) succeeds, else "INVALID <file>: <message>".
#include <exception>
#include <iostream>
#include <string>
#include "Model.hpp"

static std::string oneLine(std::string s) {
    for (char& c : s) if (c == '\n' || c == '\r') c = ' ';
    return s;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: validate-mlmodel FILE.mlmodel..." << std::endl;
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        std::string message;
        try {
            CoreML::Model model;
            CoreML::Result result = CoreML::Model::load(argv[i], model);
            if (!result.good()) message = result.message();
            if (!result.good() && message.empty()) message = "invalid (no message)";
        } catch (const std::exception& e) {
            message = std::string("exception: ") + e.what();
        } catch (...) {
            message = "unknown exception";
        }
        if (message.empty()) std::cout << "OK " << argv[i] << std::endl;
        else std::cout << "INVALID " << argv[i] << ": " << oneLine(message) << std::endl;
    }
    return 0;
}
EOF

g++ -std=c++17 -O2 -DGOOGLE_PROTOBUF_NO_STATIC_INITIALIZER \
  -I"$src/mlmodel/src" -I"$src/deps/protobuf/src" \
  "$out/src/main.cpp" -o "$out/bin/validate-mlmodel" \
  "$out/build/mlmodel/libmlmodel.a" "$out/build/deps/protobuf/cmake/libprotobuf-lite.a" -pthread
echo "build-apple-validator: $out/bin/validate-mlmodel"
