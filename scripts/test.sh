#!/usr/bin/env bash
# Runs every check CI runs: formatting, clippy, the whole test suite (unit,
# file, snapshot, end-to-end and conformance tests) with every cargo feature,
# the default build's tests, and the conformance corpus through the CLI on
# every backend available here. Prints the tests skipped (and why) at the end.
#
# Installs what it needs on a fresh Debian machine with a Rust toolchain.
# Set WEFT_REQUIRE_CORPUS=1 (CI does) to make a missing conformance corpus a
# failure instead of a skip.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: a C toolchain, LLVM 19 (the `llvm` feature: PTX, llvm-cpu,
# cuda), glslang + SPIRV-Tools (HLSL -> SPIR-V, validation), Mesa's lavapipe
# (a Vulkan device on the CPU), gdb (the JIT debug info tests).
. scripts/lib/packages.sh
ensure_packages "${LLVM_PACKAGES[@]}" glslang-tools spirv-tools \
  mesa-vulkan-drivers libvulkan1 vulkan-tools python3-venv chromium gdb
export_llvm_prefix
# ptxas and libdevice for the PTX tests, from NVIDIA's wheel, in a project-local venv.
if ! ls .venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas >/dev/null 2>&1; then
  python3 -m venv .venv
  .venv/bin/pip install -q nvidia-cuda-nvcc-cu12
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true

export WEFT_CONFORMANCE_DIR="${WEFT_CONFORMANCE_DIR:-$PWD/../shared/conformance}"
[ -d "$WEFT_CONFORMANCE_DIR" ] || echo "note: conformance corpus not found at $WEFT_CONFORMANCE_DIR; its tests will say SKIP"
# Every test that returns early (no corpus, tool or device) appends a line.
WEFT_SKIP_LOG="$(mktemp)"
export WEFT_SKIP_LOG
trap 'rm -f "$WEFT_SKIP_LOG"' EXIT

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== the host's LLVM pipeline (scripts/llvm-host-pipeline.sh --check)"
scripts/llvm-host-pipeline.sh --check
echo "== cargo clippy (default features)"
cargo clippy -p weft -p weft-cli -p weft-conform -p weft-devtools -p weft-runtime --all-targets -- -D warnings
echo "== cargo clippy (all features)"
cargo clippy --workspace --all-targets --all-features -- -D warnings
echo "== cargo test (default features: no LLVM)"
# What a build without LLVM has and says: the library, the runtime's
# registry, the CLI's errors for devices it lacks, the file tests.
cargo test -p weft -p weft-runtime --lib
cargo test -p weft-cli --lib --bins --test api --test cli --test features --test filetests
# The tool crates' unit tests (the corpus format, the fuzz generator, ...).
cargo test -p weft-conform -p weft-devtools --lib
echo "== cargo test (all features)"
cargo test --workspace --all-features
# `weft conform DIR --backend B ARGS...` through the CLI (the all-features
# debug binary cargo test built last): the failures and the summary line.
conform_on() {
  local dir=$1 b=$2 log status=0
  shift 2
  echo "-- $dir: backend $b $*"
  log=$(mktemp)
  ./target/debug/weft conform "$dir" --backend "$b" "$@" >"$log" 2>&1 || status=$?
  grep -E '^(FAIL|error|[0-9]+ passed)' "$log" || tail -n 20 "$log"
  rm -f "$log"
  [ "$status" = 0 ] || { echo "weft conform $dir --backend $b $* failed"; exit 1; }
}
if [ -d "$WEFT_CONFORMANCE_DIR" ]; then
  echo "== weft conform"
  # Both memory layouts: --layout soa makes every eligible array SoA (about
  # 20 s more on these three backends; vulkan's SoA subset is tests/layout.rs).
  for layout in aos soa; do
    for b in interp cpu llvm-cpu; do conform_on "$WEFT_CONFORMANCE_DIR" "$b" --layout "$layout"; done
    # cpu on its vector tier from the first launch (docs/vector.md; llvm-cpu
    # above runs the vector tier by default).
    echo "(WEFT_TIER_UP_MS=0: cpu's vector tier)"
    WEFT_TIER_UP_MS=0 conform_on "$WEFT_CONFORMANCE_DIR" cpu --layout "$layout"
  done
  echo "(--deterministic: deterministic launches, docs/runtime.md)"
  for b in cpu llvm-cpu; do
    conform_on "$WEFT_CONFORMANCE_DIR" "$b" --deterministic
    conform_on "$WEFT_CONFORMANCE_DIR/grad" "$b" --deterministic
  done
  echo "== weft conform (our own cases, conformance/)"
  for b in interp cpu llvm-cpu; do conform_on conformance "$b"; done
  echo "== weft conform (gradient cases) and weft gradcheck"
  for dir in "$WEFT_CONFORMANCE_DIR/grad" conformance/grad; do
    for b in interp cpu llvm-cpu; do conform_on "$dir" "$b"; done
  done
  ./target/debug/weft gradcheck "$WEFT_CONFORMANCE_DIR"/grad/cases/* conformance/grad/cases/* | tail -n 1
fi
# Fuzz smoke (docs/reliability.md): random programs on every backend
# against the interpreter. The coverage-guided targets' bodies run over
# their seeds in cargo test (tests/fuzz_targets.rs, stable Rust);
# `scripts/fuzz.sh SECONDS` runs them under libFuzzer + ASan (nightly), a
# long check outside CI.
echo "== python package (scripts/python-test.sh: venv, maturin, pytest)"
# LLVM is installed above: the package must come out with the `llvm` feature.
WEFT_EXPECT_LLVM=1 scripts/python-test.sh
echo "== distributed examples under MPI (scripts/mpi-test.sh: OpenMPI, mpi4py, 2 and 4 ranks)"
scripts/mpi-test.sh
echo "== Warp's own tests, a file per process (smoke; scripts/warp-suite.sh runs them all)"
# A crash or time-out fails this step; the counts are compared with real
# Warp's where the shared baseline is (WEFT_WARP_BASELINE), else only shown.
warp_baseline="${WEFT_WARP_BASELINE:-$PWD/../shared/warp-suite/realwarp_cpu.tsv}"
warp_args=(--isolate --device cpu --timeout 120)
[ -f "$warp_baseline" ] && warp_args+=(--baseline-file "$warp_baseline")
if .venv-py/bin/python -c 'import weft.warp_tests as t; t.cache_tests_dir()' >/dev/null 2>&1; then
  .venv-py/bin/python -m weft.warp_tests "${warp_args[@]}" \
    test_math.py test_rand.py test_operators.py test_special_values.py test_atomic.py
else
  echo "SKIP: Warp 1.19's test files could not be fetched (pip download warp-lang)"
  echo "warp_tests smoke: no Warp test files (pip download warp-lang failed)" >>"$WEFT_SKIP_LOG"
fi
echo "== fuzz smoke"
./target/debug/weft fuzz-diff --seed 1 --count 100 | tail -n 3
echo "== skipped"
n=$(wc -l <"$WEFT_SKIP_LOG")
echo "$n test(s) skipped a part for a missing corpus, tool or device"
sort "$WEFT_SKIP_LOG" | uniq -c | sed 's/^/  /'
