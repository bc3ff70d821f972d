#!/usr/bin/env bash
# The Python package (crates/python, docs/python.md): makes a project-local
# venv (.venv-py) with maturin, NumPy and pytest, builds the package into it
# (`maturin develop`, a debug build unless WEFT_PY_RELEASE=1) and runs its
# pytest suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-py
if [ ! -x "$venv/bin/maturin" ] || ! "$venv/bin/python" -c "import numpy, pytest" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q maturin numpy pytest
fi
args=()
[ "${WEFT_PY_RELEASE:-0}" = 1 ] && args=(--release)
# The `llvm` feature (vector tier, cuda) wherever LLVM 19 is, as
# `pip install ./crates/python` does (crates/python/build_backend).
prefix="$(PYTHONPATH=crates/python/build_backend "$venv/bin/python" -c 'import weft_build_backend as b; print(b.llvm_prefix() or "")')"
if [ -n "$prefix" ] && [ "${WEFT_LLVM:-auto}" != 0 ]; then
  export LLVM_SYS_191_PREFIX="$prefix"
  args+=(--features llvm)
fi
VIRTUAL_ENV="$PWD/$venv" PATH="$PWD/$venv/bin:$PATH" \
  "$venv/bin/maturin" develop -q "${args[@]}" -m crates/python/Cargo.toml
"$venv/bin/python" -m pytest -q crates/python/python/tests "$@"
