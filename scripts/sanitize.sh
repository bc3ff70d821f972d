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
#
# WEFT_SAN_TOOLCHAIN (default `nightly`); WEFT_SAN_INSTALL=1 installs it
# when missing. The build goes to $CARGO_TARGET_DIR (default target/asan).
# Leaks inside system libraries (Mesa's lavapipe, the Vulkan loader) are
# suppressed by scripts/lsan.supp; nothing of Weft's is.
set -euo pipefail
cd "$(dirname "$0")/.."

toolchain="${WEFT_SAN_TOOLCHAIN:-nightly}"
if ! cargo "+$toolchain" --version >/dev/null 2>&1; then
  if [ "${WEFT_SAN_INSTALL:-0}" = 1 ]; then
    rustup toolchain install "$toolchain" --profile minimal
  else
    echo "error: needs the $toolchain toolchain (rustup toolchain install $toolchain), or WEFT_SAN_INSTALL=1" >&2
    exit 2
  fi
fi
host=$(rustc -vV | sed -n 's/^host: //p')
export LLVM_SYS_191_PREFIX="${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/asan}"
export WEFT_CONFORMANCE_DIR="${WEFT_CONFORMANCE_DIR:-$PWD/../shared/conformance}"
# `--target` keeps build scripts and proc macros (run by cargo, on the host)
# out of the sanitized build.
export RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address"
# allocator_may_return_null: an allocation too large for memory fails as it
# does without the sanitizer (Weft turns it into a typed OutOfMemory error;
# tests/limits.rs asks for 16 TiB), instead of ASan aborting the process.
export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"
[ $# -gt 0 ] || set -- --workspace --all-features

start=$(date +%s)
status=0
cargo "+$toolchain" test --target "$host" "$@" 2>&1 | tee "${WEFT_SAN_LOG:-/dev/null}" || status=$?
echo "== sanitize: exit $status in $(( $(date +%s) - start )) s"
exit "$status"
