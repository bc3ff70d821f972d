#!/usr/bin/env bash
# Taichi and Numba on the `weft bench` workloads, on the CPU with every core
# (benches/README.md). The venv lives in the user's cache, never the repo.
#   benches/peers/run.sh            # full sizes: saxpy 2^24, scale 2^24, N-body 4096 + 16384, atomic sum 2^22, particles 2^22 AoS
#   benches/peers/run.sh --quick    # small sizes (a smoke)
set -euo pipefail
VENV="${WEFT_PEERS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/weft/peers-venv}"
[ -x "$VENV/bin/python" ] || "${PYTHON:-python3}" -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check taichi==1.7.4 numba==0.68.1 numpy
exec "$VENV/bin/python" "$(dirname "$0")/run.py" "$@"
