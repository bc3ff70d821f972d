#!/usr/bin/env bash
# Runs every check CI runs: formatting, clippy, the whole test suite (unit,
# file, snapshot, end-to-end and conformance tests), and the conformance
# corpus through the CLI on every backend available here.
#
# Installs what it needs on a fresh Debian machine with a Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: a C toolchain, LLVM 19 (PTX / llvm-cpu backends), glslang +
# SPIRV-Tools (HLSL -> SPIR-V, validation), Mesa's lavapipe (a Vulkan device on the CPU).
pkgs=(build-essential pkg-config llvm-19-dev libpolly-19-dev libzstd-dev glslang-tools spirv-tools
      mesa-vulkan-drivers libvulkan1 vulkan-tools python3-venv chromium gdb)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
# ptxas and libdevice for the PTX tests, from NVIDIA's wheel, in a project-local venv.
if [ ! -x .venv/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas ] && ! ls .venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas >/dev/null 2>&1; then
  python3 -m venv .venv
  .venv/bin/pip install -q nvidia-cuda-nvcc-cu12
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true

export WEFT_CONFORMANCE_DIR="${WEFT_CONFORMANCE_DIR:-$PWD/../shared/conformance}"
[ -d "$WEFT_CONFORMANCE_DIR" ] || echo "note: conformance corpus not found at $WEFT_CONFORMANCE_DIR; its tests will say SKIP"

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
echo "== cargo test"
cargo test --workspace
if [ -d "$WEFT_CONFORMANCE_DIR" ]; then
  # The acceptance commands, through the CLI (the debug binary cargo test built).
  echo "== weft conform"
  # Both memory layouts: --layout soa makes every eligible array SoA (about
  # 20 s more on these three backends; vulkan's SoA subset is tests/layout.rs).
  for layout in aos soa; do
  for b in interp cpu llvm-cpu; do
    echo "-- backend $b, layout $layout"
    log=$(mktemp)
    status=0
    ./target/debug/weft conform "$WEFT_CONFORMANCE_DIR" --backend "$b" --layout "$layout" >"$log" 2>&1 || status=$?
    grep -E '^(FAIL|error|[0-9]+ passed)' "$log" || tail -n 20 "$log"
    rm -f "$log"
    [ "$status" = 0 ] || { echo "weft conform --backend $b --layout $layout failed"; exit 1; }
  done
  done
fi
