#!/usr/bin/env bash
# The figures of docs/distributed.md: strong and weak scaling of
# examples/python/distributed/jacobi.py from 1 to 2 ranks on `cpu`, each
# configuration run REPS times (default 5) in alternation; prints the
# median and the spread (min-max) of the time per iteration and the halo
# exchange's share, and the median 1-minute load average before the runs
# (other work on a shared machine is the noise). Needs what
# scripts/mpi-test.sh installs.
#   scripts/mpi-scaling.sh [REPS] [N] [ITERS]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5} n=${2:-1024} iters=${3:-200}
py=.venv-py/bin/python
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
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
    load=$(cut -d' ' -f1 /proc/loadavg)
    line=$(timeout 300 mpirun --oversubscribe -x RAYON_NUM_THREADS="$threads" -n "$ranks" \
      "$py" examples/python/distributed/jacobi.py --device cpu --n "$n" --iters "$iters" $extra | grep '^RESULT ')
    echo "$name $load ${line#RESULT }" >>"$out"
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
