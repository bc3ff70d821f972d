#!/usr/bin/env bash
# Writes crates/backend-llvm/src/targets/host_o3.passes: LLVM 19's `default<O3>`
# pipeline as `opt` prints it, less the SLP vectorizer (LLVM 19.1
# miscompiles some runs of scalar stores there; see `HOST_O3_PASSES` in
# crates/backend-llvm/src/targets/host.rs). `--check` compares instead of writing.
set -euo pipefail
cd "$(dirname "$0")/.."
opt="${LLVM_SYS_191_PREFIX:-/usr/lib/llvm-19}/bin/opt"
out=crates/backend-llvm/src/targets/host_o3.passes
text="$(echo | "$opt" -passes='default<O3>' -print-pipeline-passes -disable-output - | sed 's/slp-vectorizer,//')"
if [ "${1:-}" = --check ]; then
  [ "$text" = "$(cat "$out")" ] || { echo "$out differs from $opt's default<O3> (run $0)"; exit 1; }
  echo "$out: matches $opt's default<O3> less slp-vectorizer"
else
  printf '%s' "$text" > "$out"
fi
