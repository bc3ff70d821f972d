#!/usr/bin/env bash
# Warp 1.19's whole test suite on Weft (docs/python.md, "Warp's own tests"):
# `python -m weft.warp_tests --all --device ${1:-cpu}`, every test file in
# its own process, compared with what real Warp 1.19 passes on this machine.
# Prints a line per file, a table per directory and last `P passed of N`;
# the output is also kept in target/warp-suite/DEVICE.log and the per-file
# results in target/warp-suite/DEVICE.tsv.
#
# The baseline: WEFT_WARP_BASELINE=PATH (a TSV of real Warp's counts) if
# set, else `--baseline` (measured once with warp-lang 1.19 in a venv under
# ~/.cache/weft and cached there). The Python is .venv-py's (made by
# scripts/python-test.sh) unless WEFT_PYTHON names another. Further
# arguments go to weft.warp_tests (e.g. --jobs 2, --exclude tile,geometry).
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-cpu}
shift || true
py=${WEFT_PYTHON:-.venv-py/bin/python}
if ! "$py" -c 'import weft.warp_tests' 2>/dev/null; then
  echo "no weft package for $py: run scripts/python-test.sh first (it builds .venv-py), or set WEFT_PYTHON" >&2
  exit 2
fi
if [ -n "${WEFT_WARP_BASELINE:-}" ]; then
  baseline=(--baseline-file "$WEFT_WARP_BASELINE")
else
  baseline=(--baseline)
fi
mkdir -p target/warp-suite
"$py" -m weft.warp_tests --all --device "$device" "${baseline[@]}" \
  --save "target/warp-suite/$device.tsv" "$@" | tee "target/warp-suite/$device.log"
