#!/usr/bin/env bash
# The demo: compiles the seed's N-body kernel (examples/nbody.py) and runs
# it on the fastest tier this machine has: `cuda` where an NVIDIA GPU and
# driver answer, else the CPU's LLVM vector tier on all cores (a build with
# the `llvm` feature; LLVM 19 is installed when missing). Prints the device,
# the code that ran (tier and vector width), steps/s and the relative
# energy drift, and renders the bodies to out/nbody/frame_0000.png (see
# README, "Examples"). Extra arguments go to the example (e.g. --n 4096
# --steps 200, --device cpu).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/packages.sh
ensure_packages "${LLVM_PACKAGES[@]}"
export_llvm_prefix
device=()
if ! printf '%s\n' "$@" | grep -q -- '^--device' && nvidia-smi -L >/dev/null 2>&1; then
  device=(--device cuda)
fi
cargo run --release --features llvm --example nbody -- "${device[@]}" "$@"
