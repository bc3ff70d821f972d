#!/usr/bin/env bash
# The test suite under AddressSanitizer (docs/reliability.md): everything
# `cargo test --workspace --all-features` builds and runs, compiled with
# `-Zsanitizer=address` (a nightly toolchain; the standard library itself is
# not instrumented) and run with LeakSanitizer on. Generated code (Cranelift,
# LLVM JIT) is not instrumented, but every buffer it is given is: an
# out-of-bounds access by the runtime, a use after free or a leak in any
# crate fails the run. A long check, not part of CI (a cold build took ~35 min
# on 2 cores); prints the time and exits non-zero when a test fails or ASan
# reports an error.
#
#   scripts/sanitize.sh                  # the whole suite
#   scripts/sanitize.sh -p weft-ir       # cargo test arguments instead
#   scripts/sanitize.sh --python [FILE...]   # the Python package (below)
#
# WEFT_SAN_TOOLCHAIN (default `nightly`); WEFT_SAN_INSTALL=1 installs it
# when missing. Without nightly (and unless WEFT_SAN_TOOLCHAIN is set) it
# uses `stable` with RUSTC_BOOTSTRAP=1, which unlocks `-Z` flags on a stable
# compiler: stable rustup toolchains ship the sanitizer runtimes, and the
# standard library is not rebuilt (no -Zbuild-std), so nothing else is
# needed. The build goes to $CARGO_TARGET_DIR (default target/asan).
# Leaks inside system libraries (Mesa's lavapipe, the Vulkan loader) are
# suppressed by scripts/lsan.supp; nothing of Weft's is.
#
# --python: the extension (crates/python, features llvm and vulkan) built
# with ASan into target/asan-py and installed into its own venv
# (.venv-asan, NumPy and pytest); CPython (not instrumented) runs with a
# shared ASan runtime preloaded (WEFT_SAN_RUNTIME, default GCC's
# libasan.so.8), the package's pytest suite first, then Warp's test files
# through `python -m weft.warp_tests --device cpu` (WEFT_SAN_DEVICE for
# another device; FILE... instead of the 21 of docs/python.md). Fails on a
# test failure in the pytest suite or on any ASan report; Warp's files
# have known failures (docs/python.md), so only their counts are printed.
# A cold build took 29.5 min on the shared 2-core machine, the run 190 s.
set -euo pipefail
cd "$(dirname "$0")/.."

python=0
if [ "${1:-}" = --python ]; then python=1; shift; fi

toolchain="${WEFT_SAN_TOOLCHAIN:-nightly}"
if ! cargo "+$toolchain" --version >/dev/null 2>&1; then
  if [ "${WEFT_SAN_INSTALL:-0}" = 1 ]; then
    rustup toolchain install "$toolchain" --profile minimal
  elif [ -z "${WEFT_SAN_TOOLCHAIN:-}" ] && cargo +stable --version >/dev/null 2>&1; then
    toolchain=stable
  else
    echo "error: needs the $toolchain toolchain (rustup toolchain install $toolchain), or WEFT_SAN_INSTALL=1" >&2
    exit 2
  fi
fi
# -Zsanitizer on a stable compiler.
[ "$toolchain" = nightly ] || export RUSTC_BOOTSTRAP=1
host=$(rustc -vV | sed -n 's/^host: //p')
export LLVM_SYS_191_PREFIX="${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}"
if [ "$python" = 1 ]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/asan-py}"
else
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/asan}"
fi
export WEFT_CONFORMANCE_DIR="${WEFT_CONFORMANCE_DIR:-$PWD/../shared/conformance}"
# `--target` keeps build scripts and proc macros (run by cargo, on the host)
# out of the sanitized build.
export RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address"
# allocator_may_return_null: an allocation too large for memory fails as it
# does without the sanitizer (Weft turns it into a typed OutOfMemory error;
# tests/limits.rs asks for 16 TiB), instead of ASan aborting the process.
export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"

start=$(date +%s)
if [ "$python" = 1 ]; then
  venv=.venv-asan
  if ! "$venv/bin/python" -c "import numpy, pytest" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q numpy pytest
  fi
  # A shared runtime: rustc links its static one into executables only, so
  # the extension's __asan_* calls resolve to the preloaded library.
  runtime="${WEFT_SAN_RUNTIME:-$(ls /usr/lib/*-linux-gnu/libasan.so.8 2>/dev/null | head -1)}"
  [ -f "$runtime" ] || { echo "error: no ASan runtime (apt-get install libasan8, or WEFT_SAN_RUNTIME=PATH)" >&2; exit 2; }
  export PYO3_PYTHON="$PWD/$venv/bin/python"
  cargo "+$toolchain" build --target "$host" -p weft-python \
    --features llvm,vulkan,pyo3/extension-module
  # Installed as maturin would: the package's Python files with the module.
  pkg="$CARGO_TARGET_DIR/pkg"
  rm -rf "$pkg" && mkdir -p "$pkg"
  cp -r crates/python/python/weft "$pkg/"
  rm -f "$pkg"/weft/*.so
  cp "$CARGO_TARGET_DIR/$host/debug/lib_native.so" "$pkg/weft/_native.abi3.so"
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$pkg" >"$site/weft_asan.pth"
  # Warp's wheel (the test files) is fetched before the preload.
  "$venv/bin/python" -c 'import sys; sys.path.insert(0, "crates/python/python/weft"); import warp_tests; warp_tests.cache_tests_dir()'
  [ $# -gt 0 ] || set -- test_arithmetic.py test_vec.py test_vec_constructors.py test_vec_scalar_ops.py \
    matrix/test_mat_basics.py matrix/test_mat_constructors.py matrix/test_mat_elementwise_ops.py \
    matrix/test_mat_linalg.py test_quat.py test_spatial.py test_atomic.py test_conditional.py test_struct.py \
    test_unpack.py test_lvalue.py test_copy.py test_math.py test_operators.py test_rand.py \
    test_special_values.py test_launch.py
  log="${WEFT_SAN_LOG:-$CARGO_TARGET_DIR/sanitize-python.log}"
  # Every kernel compiles under the sanitizer: a fresh compile cache.
  WEFT_CACHE_DIR=$(mktemp -d)
  supp="$WEFT_CACHE_DIR.supp"
  export WEFT_CACHE_DIR
  trap 'rm -rf "$WEFT_CACHE_DIR" "$supp" "$WEFT_CACHE_DIR".asan.*' EXIT
  cat scripts/lsan.supp scripts/lsan-python.supp >"$supp"
  export LSAN_OPTIONS="suppressions=$supp:print_suppressions=0"
  # Reports go to files, so that those of subprocesses (a test's own
  # python) are seen too.
  export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$WEFT_CACHE_DIR.asan"
  export LD_PRELOAD="$runtime"
  status=0
  "$venv/bin/python" -m pytest -q -p no:cacheprovider crates/python/python/tests 2>&1 | tee "$log" \
    || status=$?
  "$venv/bin/python" -m weft.warp_tests --device "${WEFT_SAN_DEVICE:-cpu}" "$@" 2>&1 | tee -a "$log" || true
  unset LD_PRELOAD
  for r in "$WEFT_CACHE_DIR".asan.*; do
    [ -f "$r" ] || continue
    tee -a "$log" <"$r"
    status=1
  done
  echo "== sanitize --python: exit $status in $(( $(date +%s) - start )) s ($log)"
  exit "$status"
fi
[ $# -gt 0 ] || set -- --workspace --all-features
status=0
cargo "+$toolchain" test --target "$host" "$@" 2>&1 | tee "${WEFT_SAN_LOG:-/dev/null}" || status=$?
echo "== sanitize: exit $status in $(( $(date +%s) - start )) s"
exit "$status"
