#!/usr/bin/env bash
# The long check of docs/builtins.md: every probe of conformance/registry.json
# compiled on every backend (release build with the `llvm` feature and a
# Vulkan device; about 5 minutes on 2 cores). CI's short check is
# tests/builtins_doc.rs (a row per registry builtin).
#   scripts/builtins.sh          # check (fails when docs/builtins.md is stale)
#   scripts/builtins.sh --write  # regenerate docs/builtins.md
set -euo pipefail
cd "$(dirname "$0")/.."
LLVM_SYS_191_PREFIX="${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}"
export LLVM_SYS_191_PREFIX
cargo build --release --features llvm --bin weft
bin="${CARGO_TARGET_DIR:-target}/release/weft"
if [ "${1:-}" = "--write" ]; then
  "$bin" builtins
else
  "$bin" builtins --check
fi
"$bin" builtins --counts
