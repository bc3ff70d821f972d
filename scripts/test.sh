#!/usr/bin/env bash
# Runs every check CI runs: formatting, clippy, the whole test suite (unit,
# file, snapshot, end-to-end and conformance tests), and the conformance
# corpus through the CLI on every backend available here.
#
# Installs what it needs on a fresh Debian machine with a Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cc >/dev/null || need_apt+=(build-essential)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "${need_apt[@]}"
  else sudo apt-get update -qq && sudo apt-get install -y -qq "${need_apt[@]}"; fi
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
  echo "== weft conform (release build)"
  cargo build --release --bin weft
  for b in interp cpu; do
    echo "-- backend $b"
    ./target/release/weft conform "$WEFT_CONFORMANCE_DIR" --backend "$b"
  done
fi
