#!/usr/bin/env bash
# GPU check for a machine with an NVIDIA GPU and no network:
#   1. builds `weft` in release with the `llvm` feature (PTX and the `cuda`
#      device; offline) if cargo is here and WEFT_PREBUILT is unset, else
#      uses a prebuilt target/release/weft (built with `--features llvm`);
#   2. runs the conformance corpus on the `cuda` backend;
#   3. runs it again in SoA layout (`--layout soa`) and with `--fast-math`,
#      and the gradient cases (the corpus's grad/ and conformance/grad);
#   4. bounds-checked mode: `weft run tests/checked/oob_read --checked`
#      must fail with the out-of-bounds report;
#   5. runs `weft bench-gpu`: N-body at N = 100 000 (median step time,
#      GFLOP/s at 20 flops per interaction) and saxpy at 2^28 (GB/s), then
#      `weft bench --backend cuda` (compile, launch overhead, saxpy, N-body,
#      transcendental precise/fast, particles AoS/SoA);
#   6. prints a short table last.
# Everything it needs comes with the working tree or is already on the
# machine (CUDA driver; libLLVM 19 for the weft binary; libdevice from a CUDA
# toolkit or the project .venv for kernels using transcendental math).
# Finishes in under 8 minutes (each step has a time limit). Without a GPU it
# says so and exits 0.
#
# usage: scripts/gpu-check.sh [CONFORMANCE_DIR]   (default $WEFT_CONFORMANCE_DIR or ../shared/conformance)
set -uo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
budget=470 # seconds for the whole script (under 8 minutes)
left() { echo $((budget - (SECONDS - start))); }
limit() { # min(wanted, time left - reserve), at least 10
  local l=$(($(left) - ${2:-0}))
  [ "$l" -lt 10 ] && l=10
  [ "$l" -lt "$1" ] && echo "$l" || echo "$1"
}

corpus="${1:-${WEFT_CONFORMANCE_DIR:-$PWD/../shared/conformance}}"
say() { printf '== %s\n' "$*"; }

# -- a GPU?
gpu=""
if command -v nvidia-smi >/dev/null 2>&1; then
  gpu="$(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null | head -n1)"
fi
if [ -z "$gpu" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so'; then
  echo "SKIP: no NVIDIA GPU or CUDA driver found on this machine (no nvidia-smi, no libcuda); nothing to check."
  exit 0
fi
say "GPU: ${gpu:-unknown (libcuda present, nvidia-smi absent)}"

# -- the weft binary
weft=target/release/weft
build="prebuilt"
if [ -z "${WEFT_PREBUILT:-}" ] && command -v cargo >/dev/null 2>&1; then
  say "cargo build --release --offline --features llvm --bin weft (limit $(limit 270 200)s)"
  if timeout "$(limit 270 200)" cargo build --release --offline --features llvm --bin weft; then
    build="built"
  else
    echo "warning: the release build failed or timed out"
    build="build failed"
  fi
fi
if [ ! -x "$weft" ]; then
  echo "error: no $weft (cargo missing or the build failed)"
  exit 1
fi
if ! "$weft" --version >/dev/null 2>&1; then
  echo "error: $weft does not start; missing shared libraries:"
  ldd "$weft" | grep 'not found' || true
  exit 1
fi

# -- libdevice (math functions on NVPTX)
if [ -z "${WEFT_LIBDEVICE:-}" ]; then
  for c in "${CUDA_HOME:-/nonexistent}" "${CUDA_PATH:-/nonexistent}" /usr/local/cuda /usr/local/cuda-*; do
    if [ -f "$c/nvvm/libdevice/libdevice.10.bc" ]; then export WEFT_LIBDEVICE="$c/nvvm/libdevice/libdevice.10.bc"; break; fi
  done
fi
if [ -z "${WEFT_LIBDEVICE:-}" ]; then
  ld="$(ls .venv/lib/python3*/site-packages/nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc 2>/dev/null | head -n1)"
  [ -n "$ld" ] && export WEFT_LIBDEVICE="$PWD/$ld"
fi
if [ -z "${WEFT_LIBDEVICE:-}" ]; then
  # A CUDA toolkit elsewhere, or NVIDIA's pip wheel in some Python.
  dirs="/usr/local /opt /usr/lib"
  for py in python3 python; do
    command -v "$py" >/dev/null 2>&1 && dirs="$dirs $("$py" -c 'import site,sys; print(" ".join(site.getsitepackages()+[site.getusersitepackages()]))' 2>/dev/null)"
  done
  # shellcheck disable=SC2086
  ld="$(timeout 20 find $dirs -name libdevice.10.bc -print -quit 2>/dev/null)"
  [ -n "$ld" ] && export WEFT_LIBDEVICE="$ld"
fi
echo "libdevice: ${WEFT_LIBDEVICE:-not found (kernels using sin/exp/... will not compile for cuda)}"
# A fresh compile cache, so the check measures this tree's compiler.
export WEFT_CACHE_DIR="${WEFT_CACHE_DIR:-$(mktemp -d)}"

# -- conformance on cuda
conform="not run"
if [ -d "$corpus" ]; then
  say "weft conform $corpus --backend cuda (limit $(limit 120 330)s)"
  out="$(mktemp)"
  timeout "$(limit 120 330)" "$weft" conform "$corpus" --backend cuda >"$out" 2>&1
  rc=$?
  grep -E 'FAIL|ERROR|error' "$out" | head -n 40
  conform="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n1)"
  [ -z "$conform" ] && conform="no summary (exit $rc)" && tail -n 20 "$out"
  [ "$rc" = 124 ] && conform="$conform (timed out)"
else
  echo "conformance corpus not found at $corpus"
  conform="corpus not found"
fi

# -- conformance again: SoA layout, fast math (reported, not required to pass)
conform_variant() { # label, limit, corpus dir, extra args...
  local label=$1 lim=$2 dir=$3
  shift 3
  [ -d "$dir" ] || { echo "corpus not found at $dir"; eval "$label='corpus not found'"; return; }
  say "weft conform $dir --backend cuda $* (limit ${lim}s)"
  local o
  o="$(mktemp)"
  timeout "$lim" "$weft" conform "$dir" --backend cuda "$@" >"$o" 2>&1
  local r=$?
  grep -E 'FAIL|ERROR|error' "$o" | head -n 20
  local sum
  sum="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$o" | tail -n1)"
  [ -z "$sum" ] && sum="no summary (exit $r)" && tail -n 10 "$o"
  [ "$r" = 124 ] && sum="$sum (timed out)"
  eval "$label=\$sum"
}
conform_variant conform_soa "$(limit 80 290)" "$corpus" --layout soa
conform_variant conform_fast "$(limit 70 220)" "$corpus" --fast-math
# -- the gradient cases (adjoint kernels on cuda): the corpus's and ours
conform_variant conform_grad "$(limit 40 180)" "$corpus/grad"
conform_variant conform_grad_own "$(limit 30 160)" conformance/grad

# -- bounds-checked mode: reading x[i + 1] for i up to n - 1 must be reported
say "weft run tests/checked/oob_read --backend cuda --checked"
ck="$(mktemp)"
timeout "$(limit 30 150)" "$weft" run tests/checked/oob_read --backend cuda --checked --out "$(mktemp -d)" >"$ck" 2>&1
crc=$?
cat "$ck"
if [ "$crc" != 0 ] && grep -q 'index 1024 out of bounds for axis 0 of size 1024' "$ck"; then
  checked="reported (exit $crc)"
else
  checked="NOT reported as expected (exit $crc)"
fi

# -- benchmarks
say "weft bench-gpu --n 100000 --saxpy-log2 28 (limit $(limit 70 80)s)"
bench="$(mktemp)"
timeout "$(limit 70 80)" "$weft" bench-gpu --n 100000 --steps 10 --saxpy-log2 28 >"$bench" 2>&1
brc=$?
cat "$bench"

say "weft bench --backend cuda (limit $(limit 75 2)s)"
timeout "$(limit 75 2)" "$weft" bench --backend cuda 2>&1

say "summary ($((SECONDS - start)) s)"
echo "| check | result |"
echo "|---|---|"
echo "| GPU | ${gpu:-unknown} |"
echo "| weft binary | $build |"
echo "| conform --backend cuda | $conform |"
echo "| conform --backend cuda --layout soa | $conform_soa |"
echo "| conform --backend cuda --fast-math | $conform_fast |"
echo "| conform grad --backend cuda | $conform_grad |"
echo "| conform conformance/grad --backend cuda | $conform_grad_own |"
echo "| run --checked (oob_read) | $checked |"
if [ "$brc" = 0 ]; then
  grep -E '^\| (nbody_step|saxpy) ' "$bench" | sed -E 's/^\| ([^|]*) \| ([^|]*) \| ([^|]*) \| ([^|]*) \|$/| \1 (\2) | \3, \4 |/'
else
  echo "| bench-gpu | failed (exit $brc): $(tail -n1 "$bench") |"
fi
