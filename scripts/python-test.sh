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
release=()
[ "${WEFT_PY_RELEASE:-0}" = 1 ] && release=(--release)
VIRTUAL_ENV="$PWD/$venv" PATH="$PWD/$venv/bin:$PATH" \
  "$venv/bin/maturin" develop -q "${release[@]}" -m crates/python/Cargo.toml
"$venv/bin/python" -m pytest -q crates/python/python/tests "$@"
