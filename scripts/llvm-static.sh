#!/usr/bin/env bash
# A static-only view of LLVM 19 for llvm-sys: a prefix whose bin/llvm-config
# forwards to the real one but refuses `--link-shared`, so llvm-sys (feature
# prefer-dynamic, through inkwell) falls back to LLVM's static archives and
# the result has no libLLVM dependency. Idempotent; prints the prefix.
#
#   LLVM_SYS_191_PREFIX=$(scripts/llvm-static.sh) CARGO_TARGET_DIR=target/static \
#     cargo build --release --features llvm --bin weft
#
# The real LLVM: $LLVM_STATIC_FROM (default /usr/lib/llvm-19, Debian's
# llvm-19-dev, whose lib/ has the libLLVM*.a). The view: $LLVM_STATIC_VIEW
# (default target/llvm19-static). Use its own CARGO_TARGET_DIR: artifacts
# linked against the shared libLLVM are otherwise rebuilt back and forth.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
real="${LLVM_STATIC_FROM:-/usr/lib/llvm-19}"
view="${LLVM_STATIC_VIEW:-$root/target/llvm19-static}"
if [ ! -x "$real/bin/llvm-config" ] || ! ls "$real"/lib/libLLVMCore.a >/dev/null 2>&1; then
  echo "llvm-static.sh: no static LLVM at $real (Debian: apt-get install llvm-19-dev)" >&2
  exit 1
fi
wrapper="#!/bin/sh
# Static-only view of $real (made by scripts/llvm-static.sh).
for a; do
  case \"\$a\" in
    --link-shared) echo 'static-only view of LLVM: no shared libLLVM' >&2; exit 1 ;;
    --shared-mode) echo static; exit 0 ;;
  esac
done
exec '$real/bin/llvm-config' \"\$@\"
"
# Rewritten only when it changes: llvm-sys reruns its build script (and
# cargo relinks everything above it) when anything under the prefix changes.
if [ "$(cat "$view/bin/llvm-config" 2>/dev/null)" != "${wrapper%$'\n'}" ]; then
  mkdir -p "$view/bin"
  printf '%s' "$wrapper" >"$view/bin/llvm-config.tmp"
  chmod +x "$view/bin/llvm-config.tmp"
  mv "$view/bin/llvm-config.tmp" "$view/bin/llvm-config"
fi
echo "$view"
