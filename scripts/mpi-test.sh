#!/usr/bin/env bash
# The distributed examples under MPI (docs/distributed.md): installs
# OpenMPI from Debian's packages and mpi4py from PyPI into the package's
# venv (.venv-py, made by scripts/python-test.sh) where missing, then runs
# with 2 (and 4) ranks on `cpu`, each run into one fresh compile cache:
#   jacobi.py --check   (bit-identical to the single-process solve),
#   ensemble.py --check (every simulation's gathered positions identical
#                        to rank 0's rerun; per-rank and total throughput),
# and jacobi.py on `vulkan` where a Vulkan device is (lavapipe), and
# jacobi_torch.py under torchrun where PyTorch is. Fails on a mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/packages.sh

py=.venv-py/bin/python
if ! "$py" -c "import weft.warp" 2>/dev/null; then
  echo "mpi-test: $py cannot import weft.warp: run scripts/python-test.sh first (it builds the package into .venv-py)"
  exit 1
fi
command -v mpirun >/dev/null && dpkg -s libopenmpi-dev >/dev/null 2>&1 || ensure_packages openmpi-bin libopenmpi-dev
"$py" -c "import mpi4py" 2>/dev/null || .venv-py/bin/pip install -q mpi4py

# OpenMPI refuses root unless told; `--oversubscribe`: more ranks than cores.
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
cache="$(mktemp -d)"
log="$(mktemp)"
trap 'rm -rf "$cache" "$log"' EXIT
export WEFT_CACHE_DIR="$cache"
skip() {
  echo "SKIP: $1"
  [ -n "${WEFT_SKIP_LOG:-}" ] && echo "mpi-test: $1" >>"$WEFT_SKIP_LOG"
  return 0
}
ex=examples/python/distributed

# run NAME EXPECT... -- CMD...: runs CMD (120 s at most), shows its output,
# fails unless it exits 0 and prints every EXPECT line pattern.
run() {
  local name=$1 status=0 pat
  shift
  local expect=()
  while [ "$1" != "--" ]; do expect+=("$1"); shift; done
  shift
  echo "-- $name: $*"
  timeout 120 "$@" >"$log" 2>&1 || status=$?
  grep -v '^RESULT ' "$log" || true
  [ "$status" = 0 ] || { echo "mpi-test: $name exited with status $status"; exit 1; }
  for pat in "${expect[@]}"; do
    grep -Eq "$pat" "$log" || { echo "mpi-test: $name did not print /$pat/"; exit 1; }
  done
}

mpi=(mpirun --oversubscribe -x WEFT_CACHE_DIR -n)
# Both ranks compile the module into the fresh cache at once.
run "jacobi, 2 ranks" '^CHECK PASSED$' -- "${mpi[@]}" 2 "$py" $ex/jacobi.py --device cpu --n 256 --iters 100 --check
# Four ranks, an uneven row split (130 = 33 + 33 + 32 + 32), the cache warm.
run "jacobi, 4 ranks" '^CHECK PASSED$' -- "${mpi[@]}" 4 "$py" $ex/jacobi.py --device cpu --n 130 --iters 60 --check
run "jacobi, 2 ranks, weak" '^CHECK PASSED$' -- "${mpi[@]}" 2 "$py" $ex/jacobi.py --device cpu --n 64 --iters 60 --weak --check
run "ensemble, 2 ranks" '^CHECK PASSED$' '^  rank 0: ' '^  rank 1: ' '^  total: ' -- \
  "${mpi[@]}" 2 "$py" $ex/ensemble.py --device cpu --sims 4 --bodies 256 --steps 20 --check

# vulkan: the same example unmodified, where a Vulkan device opens.
probe="$cache/vulkan_probe.py"  # a file: kernels' source is read from it
cat >"$probe" <<'PY'
import weft.warp as wp
a = wp.zeros(4, dtype=float, device="vulkan")
@wp.kernel
def one(x: wp.array(dtype=float)):
    x[wp.tid()] = 1.0
wp.launch(one, dim=4, inputs=[a], device="vulkan")
assert a.numpy().tolist() == [1.0] * 4
PY
if "$py" "$probe" >/dev/null 2>&1; then
  run "jacobi, 2 ranks, vulkan" '^CHECK PASSED$' -- "${mpi[@]}" 2 "$py" $ex/jacobi.py --device vulkan --n 64 --iters 20 --check
else
  skip "jacobi.py --device vulkan: no Vulkan device here"
fi

# torch.distributed: where PyTorch is installed, under torchrun.
if "$py" -c "import torch" 2>/dev/null; then
  run "jacobi_torch, 2 ranks" '^CHECK PASSED$' -- \
    "$(dirname "$py")/torchrun" --nproc-per-node 2 $ex/jacobi_torch.py --device cpu --n 128 --iters 50 --check
else
  run "jacobi_torch without PyTorch" 'not installed, skipped' -- "$py" $ex/jacobi_torch.py --check
  skip "jacobi_torch.py (torch.distributed): PyTorch is not installed"
fi
echo "mpi-test: all passed"
