#!/usr/bin/env bash
# The figures of docs/distributed.md: strong and weak scaling of
# examples/python/distributed/jacobi.py from 1 to 2 ranks on `cpu`, each
# configuration run REPS times (default 5) in alternation; prints the
# median and the spread (min-max) of the time per iteration and the halo
# exchange's share, and the median 1-minute load average before the runs
# (other work on a shared machine is the noise). Needs what
# scripts/mpi-test.sh installs.
#   scripts/mpi-scaling.sh [REPS] [N] [ITERS]
# `ensemble` first: examples/python/distributed/ensemble.py instead (8
# simulations; 1x1, 1x2 and 2x1 ranks x threads), its throughput:
#   scripts/mpi-scaling.sh ensemble [REPS] [BODIES] [STEPS]
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv-py/bin/python
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

# measure NAME RANKS THREADS SCRIPT ARGS...: one run under mpirun; appends
# "NAME LOAD JSON" (the load average before it, the script's RESULT line).
measure() {
  local name=$1 ranks=$2 threads=$3 script=$4 load line
  shift 4
  load=$(cut -d' ' -f1 /proc/loadavg)
  line=$(timeout 300 mpirun --oversubscribe -x RAYON_NUM_THREADS="$threads" -n "$ranks" \
    "$py" "examples/python/distributed/$script" --device cpu "$@" | grep '^RESULT ')
  echo "$name $load ${line#RESULT }" >>"$out"
}

if [ "${1:-}" = ensemble ]; then
  reps=${2:-5} bodies=${3:-2048} steps=${4:-50}
  for ((r = 0; r < reps; r++)); do
    for c in "1 1" "1 2" "2 1"; do
      read -r ranks threads <<<"$c"
      measure "${ranks}x$threads" "$ranks" "$threads" ensemble.py --sims 8 --bodies "$bodies" --steps "$steps"
    done
  done
  "$py" - "$out" "$bodies" "$steps" "$reps" <<'PY'
import json, statistics, sys
path, bodies, steps, reps = sys.argv[1:]
rows = {}
for line in open(path):
    name, load, js = line.split(" ", 2)
    rows.setdefault(name, []).append({**json.loads(js), "load": float(load)})
print(f"ensemble.py --device cpu --sims 8 --bodies {bodies} --steps {steps}: {reps} runs each, median [min-max]")
print(f"{'ranks x threads':16} {'total M body-steps/s':>24} {'wall s':>24} {'slowest rank M/s':>17} {'load':>5}")
for name, rs in rows.items():
    t = sorted(r["body_steps_per_s"] / 1e6 for r in rs)
    w = sorted(r["wall_s"] for r in rs)
    slow = statistics.median(min(r["per_rank_body_steps_per_s"]) / 1e6 for r in rs)
    print(
        f"{name:16} {statistics.median(t):10.2f} [{t[0]:.2f}-{t[-1]:.2f}] {statistics.median(w):10.3f} [{w[0]:.3f}-{w[-1]:.3f}] "
        f"{slow:17.2f} {statistics.median(r['load'] for r in rs):5.1f}"
    )
PY
  exit 0
fi

reps=${1:-5} n=${2:-1024} iters=${3:-200}
# NAME RANKS THREADS ARGS...
configs=(
  "strong:1x1 1 1"
  "strong:1x2 1 2"
  "strong:2x1 2 1"
  "strong:2x1+barrier 2 1 --barrier"
  "strong:4x1(oversubscribed) 4 1"
  "weak:1x1 1 1 --weak"
  "weak:2x1 2 1 --weak"
)
for ((r = 0; r < reps; r++)); do
  for c in "${configs[@]}"; do
    read -r name ranks threads extra <<<"$c"
    # shellcheck disable=SC2086  # $extra is zero or more flags
    measure "$name" "$ranks" "$threads" jacobi.py --n "$n" --iters "$iters" $extra
  done
done
"$py" - "$out" "$n" "$iters" "$reps" <<'PY'
import json, statistics, sys
path, n, iters, reps = sys.argv[1:]
rows = {}
for line in open(path):
    name, load, js = line.split(" ", 2)
    rows.setdefault(name, []).append({**json.loads(js), "load": float(load)})
print(f"jacobi.py --device cpu --n {n} --iters {iters}: {reps} runs each (ms per iteration, median [min-max])")
print(f"{'config (ranks x threads)':28} {'grid':>10} {'step':>22} {'sweep':>8} {'halo':>8} {'wait':>8} {'halo share':>22} {'load':>5}")
for name, rs in rows.items():
    def med(k, scale=1e3):
        v = sorted(r[k] * scale for r in rs)
        return statistics.median(v), v[0], v[-1]
    s, smin, smax = med("s_per_iter")
    h, hmin, hmax = med("halo_share", 100)
    print(
        f"{name:28} {rs[0]['ny']:>5}x{rs[0]['nx']:<4} {s:8.3f} [{smin:.3f}-{smax:.3f}] {med('sweep_s_per_iter')[0]:8.3f} "
        f"{med('halo_s_per_iter')[0]:8.3f} {med('wait_s_per_iter')[0]:8.3f} {h:6.1f}% [{hmin:.1f}-{hmax:.1f}] {statistics.median(r['load'] for r in rs):5.1f}"
    )
PY
