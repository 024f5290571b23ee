#!/usr/bin/env bash
# Runs every command of README.md's quick-start block on small stand-ins of
# the files it names and checks that each model is app-ready and computes
# what its framework computes (scripts/verify/quickstart.py says how).
# Part of scripts/test. Needs a release build (swift build -c release) and
# the check environment of scripts/bootstrap.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${QUICKSTART_BIN:-$root/.build/release}"
for program in coreml-convert coreml-inspect coreml-predict coreml-generate; do
  [ -x "$bin/$program" ] || { echo "quickstart: $bin/$program is missing: run swift build -c release first" >&2; exit 1; }
done
exec "$root/.venv/bin/python" "$root/scripts/verify/quickstart.py" "$bin"
