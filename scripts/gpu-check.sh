#!/usr/bin/env bash
# Every GPU check in one run, for a lent machine with an NVIDIA GPU and no
# network (prepared here by scripts/gpu-pack.sh; docs/ptx.md, "On a GPU"):
#   A. in parallel: the conformance corpus on `cuda` (AoS, SoA, fast math),
#      the gradient cases (the corpus's grad/ and conformance/grad),
#      bounds-checked mode (tests/checked/oob_read must be reported),
#      Warp 1.19's test files on cuda:0 through the Python package (the
#      21 files of docs/python.md), and nvcc builds of benches/gpu/workloads.cu;
#   B. alone on the GPU, one after the other: the workloads N-body 100k,
#      saxpy 2^28, transcendental 2^28, atomic sum 2^26 in hand-written CUDA
#      C (nvcc -O3 -arch=sm_XX, and with -fmad=false), `weft bench-gpu`,
#      numba-cuda, Triton, CuPy (benches/gpu/peers.py), then
#      `weft bench --backend cuda`;
#   C. the checks table, then the workloads table (benches/gpu/table.py),
#      last. Tile matmul: n/a until tiles land.
# Writes to $OUT (default out/gpu-check): table.md, log.txt (this output),
# bench.jsonl (every workload row), warp-tests.txt, logs.tar.gz (each
# step's log). Whole run under $WEFT_GPU_CHECK_BUDGET seconds (570); every
# step runs under `timeout`. Without a GPU: SKIP, exit 0.
#
# The weft binary: $WEFT_BIN, else gpu-carry/weft (or weft.xz, weft.zst:
# a static build, no libLLVM needed), else `cargo build --release --features
# llvm` if cargo is here and WEFT_PREBUILT is unset, else target/release/weft.
# The corpus: argument 1, $WEFT_CONFORMANCE_DIR, gpu-carry/conformance(.tar.xz),
# ../shared/conformance. Python package: $WEFT_SITE (installed), else
# gpu-carry/weft-*.whl (or dist/weft-*.whl) installed with pip --target.
# Warp's tests: gpu-carry/warp/tests or gpu-carry/warp-tests.tar.xz.
#
# WEFT_GPU_CHECK_DRYRUN=1: no GPU needed; the same steps on the `cpu` device
# at small sizes, numba under its CUDA simulator, CUDA C/Triton/CuPy rows from
# benches/gpu/dryrun.jsonl (made-up figures): tests the script and its tables.
#
# usage: scripts/gpu-check.sh [CONFORMANCE_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$SECONDS
budget=${WEFT_GPU_CHECK_BUDGET:-570}
dry=${WEFT_GPU_CHECK_DRYRUN:-}
carry=${WEFT_GPU_CARRY:-$root/gpu-carry}
py=${PYTHON:-python3}
left() { echo $((budget - (SECONDS - start))); }
limit() { # min(wanted, time left - reserve), at least 5
  local l=$(($(left) - ${2:-0}))
  [ "$l" -lt 5 ] && l=5
  [ "$l" -lt "$1" ] && echo "$l" || echo "$1"
}
say() { printf '== [%3d s] %s\n' $((SECONDS - start)) "$*"; }

# -- a GPU?
gpu=""
if [ -n "$dry" ]; then
  gpu="DRY RUN: no GPU (cpu device, small sizes, made-up CUDA C/Triton/CuPy rows)"
else
  if command -v nvidia-smi >/dev/null 2>&1; then
    gpu="$(timeout 30 nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null | head -n1)"
  fi
  if [ -z "$gpu" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so'; then
    echo "SKIP: no NVIDIA GPU or CUDA driver found on this machine (no working nvidia-smi, no libcuda); nothing to check."
    exit 0
  fi
fi

OUT=${OUT:-$root/out/gpu-check}
mkdir -p "$OUT"
work="$(mktemp -d "${TMPDIR:-/tmp}/weft-gpu-check.XXXXXX")"
logs=$work/logs
mkdir -p "$logs"
exec > >(tee "$OUT/log.txt") 2>&1
teepid=$!
say "GPU: ${gpu:-unknown (libcuda present, nvidia-smi absent)}"
[ -f "$carry/MANIFEST" ] && sed 's/^/   carry: /' "$carry/MANIFEST"
echo "   tree: $(git rev-parse --short HEAD 2>/dev/null || echo 'no git') ; nproc $(nproc) ; $($py --version 2>&1)"
cc="$(echo "$gpu" | awk -F', *' '{print $3}' | tr -d .)"
arch="sm_${cc:-90}"

# Decompresses $1 (.xz or .zst) to $2.
unpack() {
  case "$1" in
    *.xz) if command -v xz >/dev/null 2>&1; then xz -dc "$1" >"$2"; else
      $py -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"; fi ;;
    *.zst) if command -v zstd >/dev/null 2>&1; then zstd -qdc "$1" >"$2"; else
      $py -c 'import sys,zstandard; zstandard.ZstdDecompressor().copy_stream(open(sys.argv[1],"rb"), open(sys.argv[2],"wb"))' "$1" "$2"; fi ;;
  esac
}
# Unpacks tarball $1 into $2 (python's tarfile when tar lacks xz).
untar() {
  mkdir -p "$2"
  tar -xf "$1" -C "$2" 2>/dev/null ||
    $py -c 'import sys,tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"
}

# -- the weft binary
weft="" build=""
if [ -n "${WEFT_BIN:-}" ]; then
  weft=$WEFT_BIN build="WEFT_BIN"
elif [ -x "$carry/weft" ]; then
  weft=$carry/weft build="carried"
elif [ -f "$carry/weft.xz" ] || [ -f "$carry/weft.zst" ]; then
  z="$(ls "$carry"/weft.xz "$carry"/weft.zst 2>/dev/null | head -n1)"
  unpack "$z" "$work/weft" && chmod +x "$work/weft" && weft=$work/weft build="carried ($(basename "$z"))"
elif [ -z "${WEFT_PREBUILT:-}" ] && command -v cargo >/dev/null 2>&1; then
  say "cargo build --release --offline --features llvm --bin weft (limit $(limit 240 300)s)"
  if timeout "$(limit 240 300)" cargo build --release --offline --features llvm --bin weft; then
    build="built"
  else
    build="build failed"
  fi
  weft=target/release/weft
else
  weft=target/release/weft build="prebuilt"
fi
# Shared libraries the machine lacks: the copies gpu-pack.sh carried.
if [ -n "$weft" ] && ! "$weft" --version >/dev/null 2>&1 && [ -d "$carry/lib" ] &&
  LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$weft" --version >/dev/null 2>&1; then
  export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "   LD_LIBRARY_PATH=$LD_LIBRARY_PATH (weft needs the carried libraries)"
fi
if ! "$weft" --version >/dev/null 2>&1; then
  echo "error: $weft ($build) does not start"
  [ -f "$weft" ] && ldd "$weft" 2>&1 | grep 'not found'
  weft=""
fi
echo "   weft: ${weft:-none} ($build) $([ -n "$weft" ] && "$weft" --version 2>&1 | head -n1)"

# -- the corpus
corpus="${1:-${WEFT_CONFORMANCE_DIR:-}}"
if [ -z "$corpus" ]; then
  if [ -d "$carry/conformance" ]; then corpus=$carry/conformance
  elif [ -f "$carry/conformance.tar.xz" ]; then untar "$carry/conformance.tar.xz" "$work" && corpus=$work/conformance
  else corpus=$root/../shared/conformance; fi
fi

# -- libdevice (math functions on NVPTX)
if [ -z "${WEFT_LIBDEVICE:-}" ]; then
  nv="$(command -v nvcc 2>/dev/null)"
  for c in "${CUDA_HOME:-/nonexistent}" "${CUDA_PATH:-/nonexistent}" ${nv:+"$(dirname "$(dirname "$nv")")"} /usr/local/cuda /usr/local/cuda-*; do
    if [ -f "$c/nvvm/libdevice/libdevice.10.bc" ]; then export WEFT_LIBDEVICE="$c/nvvm/libdevice/libdevice.10.bc"; break; fi
  done
fi
if [ -z "${WEFT_LIBDEVICE:-}" ]; then
  dirs="/usr/local /opt /usr/lib $($py -c 'import site; print(" ".join(site.getsitepackages()+[site.getusersitepackages()]))' 2>/dev/null)"
  # shellcheck disable=SC2086
  ld="$(timeout 20 find $dirs -name libdevice.10.bc -print -quit 2>/dev/null)"
  [ -n "$ld" ] && export WEFT_LIBDEVICE="$ld"
fi
echo "   libdevice: ${WEFT_LIBDEVICE:-not found (kernels using sin/exp/... will not compile for cuda)}"

# -- nvcc
nvcc="$(command -v nvcc 2>/dev/null)"
for c in "${CUDA_HOME:-/nonexistent}" /usr/local/cuda /usr/local/cuda-*; do
  [ -z "$nvcc" ] && [ -x "$c/bin/nvcc" ] && nvcc=$c/bin/nvcc
done
echo "   nvcc: ${nvcc:-not found} ($([ -n "$nvcc" ] && "$nvcc" --version | tail -n1))"
# The toolkit for numba-cuda (NVVM, libdevice) and CuPy (headers).
tk="$([ -n "$nvcc" ] && dirname "$(dirname "$nvcc")")"
if [ -z "${CUDA_HOME:-}" ] && [ -n "$tk" ] && [ -d "$tk/nvvm" ]; then
  export CUDA_HOME=$tk
  export CUDA_PATH="${CUDA_PATH:-$tk}"
fi

backend=cuda device=cuda:0
[ -n "$dry" ] && backend=cpu device=cpu

# Runs "$@" in the background under `timeout $lim`, its output in
# $logs/$name.log and its exit status in $logs/$name.rc.
pids=()
bg() {
  local name=$1 lim=$2
  shift 2
  (
    timeout -k 5 "$lim" "$@" >"$logs/$name.log" 2>&1
    echo $? >"$logs/$name.rc"
  ) &
  pids+=($!)
}
rc() { cat "$logs/$1.rc" 2>/dev/null || echo "?"; }
# "P passed, F failed" of a step's log, or why not.
summary() {
  local s r
  s="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logs/$1.log" 2>/dev/null | tail -n1)"
  r="$(rc "$1")"
  [ -z "$s" ] && s="no summary (exit $r)"
  [ "$r" = 124 ] || [ "$r" = 137 ] && s="$s (timed out)"
  echo "$s"
}

# ==== A: checks in parallel
phase_a=$(limit 240 240)
if [ "$phase_a" -lt 60 ]; then
  echo "warning: WEFT_GPU_CHECK_BUDGET=$budget leaves the checks ${phase_a}s (the workloads keep 240s): they will time out; give at least 330"
fi
say "A: checks in parallel (each under ${phase_a}s)"
conform_rows=()
conform() { # name, dir, extra args
  local name=$1 dir=$2
  shift 2
  if [ -z "$weft" ]; then echo "no weft binary" >"$logs/$name.log"; echo 1 >"$logs/$name.rc"; return; fi
  if [ ! -d "$dir" ]; then echo "corpus not found at $dir" >"$logs/$name.log"; echo 1 >"$logs/$name.rc"; return; fi
  WEFT_CACHE_DIR="$work/cache-$name" bg "$name" "$phase_a" "$weft" conform "$dir" --backend "$backend" "$@"
}
conform conform "$corpus"
conform conform_soa "$corpus" --layout soa
conform conform_fast "$corpus" --fast-math
conform conform_grad "$corpus/grad"
conform conform_grad_own "$root/conformance/grad"
if [ -n "$weft" ]; then
  WEFT_CACHE_DIR="$work/cache-checked" bg checked 60 "$weft" run tests/checked/oob_read --backend "$backend" --checked --out "$work/checked-out"
fi

# Warp's test files (docs/python.md), in 4 groups by weight.
groups=(
  "test_vec_scalar_ops.py test_arithmetic.py test_copy.py test_rand.py test_launch.py"
  "test_spatial.py test_quat.py test_vec.py test_vec_constructors.py test_special_values.py"
  "matrix/test_mat_basics.py matrix/test_mat_constructors.py matrix/test_mat_elementwise_ops.py matrix/test_mat_linalg.py test_math.py"
  "test_atomic.py test_conditional.py test_struct.py test_unpack.py test_lvalue.py test_operators.py"
)
site=${WEFT_SITE:-}
if [ -z "$site" ]; then
  whl="$(ls -t "$carry"/weft-*.whl "$root"/dist/weft-*.whl 2>/dev/null | head -n1)"
  if [ -n "$whl" ]; then
    site=$work/weft-site
    if ! $py -m pip install -q --no-index --no-deps --target "$site" "$whl" >"$logs/wheel.log" 2>&1; then
      # A wheel is a zip: unpacked, it is installed.
      $py -c 'import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$site" >>"$logs/wheel.log" 2>&1 || site=""
    fi
    echo "   wheel: $(basename "$whl") -> ${site:-install failed (logs/wheel.log)}"
  fi
fi
if [ -n "$site" ] && ! PYTHONPATH="$site" $py -c 'import weft' >>"$logs/wheel.log" 2>&1; then
  if [ -d "$carry/lib" ] && [[ ":${LD_LIBRARY_PATH:-}:" != *":$carry/lib:"* ]] &&
    LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONPATH="$site" $py -c 'import weft' >/dev/null 2>&1; then
    export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    echo "   LD_LIBRARY_PATH=$LD_LIBRARY_PATH (the package needs the carried libraries)"
  else
    echo "   warning: import weft fails: $(tail -n 1 "$logs/wheel.log")"
  fi
fi
# The line of file $2 in log $1.
file_line() { awk -v f="$2: " 'index($0, f) == 1 { l = $0 } END { if (l == "") exit 1; print l }' "$1"; }
# Runs group $1's files (the rest of the arguments) until each has its line,
# under one deadline; a file that crashes the process counts one failure and
# the group goes on after it.
warp_group() {
  local g=$1 end=$((SECONDS + phase_a)) r=0 t f crashed next
  shift
  local todo=("$@") log=$logs/warp$g.log
  : >"$log"
  while [ ${#todo[@]} -gt 0 ]; do
    t=$((end - SECONDS))
    [ "$t" -lt 5 ] && r=124 && break
    WEFT_CACHE_DIR="$work/cache-warp$g" PYTHONPATH="$site" timeout -k 5 "$t" \
      $py -m weft.warp_tests --device "$device" --tests-dir "$tests" "${todo[@]}" >>"$log" 2>&1
    r=$?
    { [ "$r" = 124 ] || [ "$r" = 137 ]; } && break
    next=() crashed=""
    for f in "${todo[@]}"; do
      file_line "$log" "$f" >/dev/null && continue
      if [ -z "$crashed" ]; then
        crashed=$f
        echo "$f: 0 passed, 1 failed, 0 skipped (crashed the process: exit $r)" >>"$log"
      else
        next+=("$f")
      fi
    done
    todo=("${next[@]}")
  done
  echo "$r" >"$logs/warp$g.rc"
}
tests=""
if [ -d "$carry/warp/tests" ]; then tests=$carry/warp/tests
elif [ -f "$carry/warp-tests.tar.xz" ]; then untar "$carry/warp-tests.tar.xz" "$work" && tests=$work/warp/tests; fi
warp_note=""
if [ -z "$site" ]; then warp_note="not run: no Python package (gpu-carry/weft-*.whl or WEFT_SITE)"
elif [ -z "$tests" ] || [ ! -d "$tests" ]; then warp_note="not run: no Warp tests (gpu-carry/warp-tests.tar.xz)"
else
  for g in "${!groups[@]}"; do
    # shellcheck disable=SC2086
    warp_group "$g" ${groups[$g]} &
    pids+=($!)
  done
fi

# CUDA C builds (CPU only).
cuda_bins=()
if [ -n "$nvcc" ] && [ -z "$dry" ]; then
  bg nvcc "$phase_a" "$nvcc" -O3 -arch="$arch" -o "$work/workloads" benches/gpu/workloads.cu
  bg nvcc_nofma "$phase_a" "$nvcc" -O3 -arch="$arch" -fmad=false -o "$work/workloads-nofma" benches/gpu/workloads.cu
elif [ -n "$nvcc" ]; then
  bg nvcc "$phase_a" "$nvcc" -O3 -arch="$arch" -c -o "$work/workloads.o" benches/gpu/workloads.cu
fi
wait "${pids[@]}"
say "A done"
for n in conform conform_soa conform_fast conform_grad conform_grad_own; do
  [ -f "$logs/$n.log" ] && grep -E 'FAIL|ERROR|error' "$logs/$n.log" | head -n 15 | sed "s/^/   $n: /"
done
checked="not run"
if [ -f "$logs/checked.log" ]; then
  sed 's/^/   checked: /' "$logs/checked.log" | head -n 5
  if [ "$(rc checked)" != 0 ] && grep -q 'index 1024 out of bounds for axis 0 of size 1024' "$logs/checked.log"; then
    checked="reported (exit $(rc checked))"
  else
    checked="NOT reported as expected (exit $(rc checked))"
  fi
fi
# Per-file warp test lines, in the groups' order.
: >"$OUT/warp-tests.txt"
wp=0 wf=0
if [ -z "$warp_note" ]; then
  for g in "${!groups[@]}"; do
    for f in ${groups[$g]}; do
      l="$(file_line "$logs/warp$g.log" "$f" 2>/dev/null)"
      if [ -z "$l" ]; then
        r="$(rc "warp$g")"
        l="$f: not reached (group exit $r$([ "$r" = 124 ] && echo ', timed out'))"
      fi
      echo "$l" >>"$OUT/warp-tests.txt"
      p="$(echo "$l" | sed -nE 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/p')"
      f_="$(echo "$l" | sed -nE 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/p')"
      wp=$((wp + ${p:-0})) wf=$((wf + ${f_:-0}))
    done
  done
  warp_note="$wp passed, $wf failed ($(grep -c 'passed,' "$OUT/warp-tests.txt") of 21 files ran; per file: warp-tests.txt)"
  for g in "${!groups[@]}"; do grep -E 'Traceback|Error' "$logs/warp$g.log" | head -n 3 | sed "s/^/   warp$g: /"; done
else
  echo "$warp_note" >"$OUT/warp-tests.txt"
fi

# ==== B: workloads, alone on the GPU
say "B: workloads"
jl=$work/bench.jsonl
: >"$jl"
if [ -n "$dry" ]; then
  sizes=(--n 256 --steps 2 --saxpy-log2 12 --transcendental-log2 12 --atomic-log2 12)
else
  sizes=(--n 100000 --steps 10 --saxpy-log2 28 --transcendental-log2 28 --atomic-log2 26)
fi
errrow() { # impl, message: an error row of the table
  $py -c 'import json,sys; print(json.dumps({"impl": sys.argv[1], "error": sys.argv[2]}))' "$1" "$2" >>"$jl"
}
step() { # name, wanted limit, reserve, command...: runs in the foreground, output to the log
  local name=$1 lim
  lim=$(limit "$2" "$3")
  shift 3
  say "$name (limit ${lim}s)"
  timeout -k 5 "$lim" "$@" >"$logs/$name.log" 2>&1
  echo $? >"$logs/$name.rc"
  grep -E '^\{' "$logs/$name.log" >>"$jl"
  grep -vE '^\{' "$logs/$name.log" | grep -iE 'error|fail|warn' | head -n 5 | sed "s/^/   /"
  [ "$(rc "$name")" = 0 ] || echo "   exit $(rc "$name")"
}
if [ -n "$dry" ]; then
  say "cuda-c, triton, cupy: made-up rows of benches/gpu/dryrun.jsonl"
  cat benches/gpu/dryrun.jsonl >>"$jl"
else
  for b in workloads workloads-nofma; do
    if [ -x "$work/$b" ]; then
      lab=cuda-c
      [ "$b" = workloads-nofma ] && lab=cuda-c-nofma
      step "$lab" 60 150 "$work/$b" --label "$lab" "${sizes[@]}"
    else
      lab=cuda-c
      [ "$b" = workloads-nofma ] && lab=cuda-c-nofma
      why="$([ -n "$nvcc" ] && tail -n 3 "$logs/nvcc$([ "$b" = workloads-nofma ] && echo _nofma).log" || echo 'no nvcc')"
      echo "   $b: not built ($why)"
      errrow "$lab" "not built: $why"
    fi
  done
fi
if [ -n "$weft" ]; then
  if "$weft" bench-gpu --help 2>/dev/null | grep -q -- --json; then
    dev_arg=()
    [ -n "$dry" ] && dev_arg=(--device "$backend")
    step weft-bench-gpu 90 120 "$weft" bench-gpu ${dev_arg[@]+"${dev_arg[@]}"} "${sizes[@]}" --json "$work/weft.jsonl"
  else
    # A weft from before bench-gpu's --json: N-body and saxpy, read from its table.
    echo "   (this weft's bench-gpu has no --json: N-body and saxpy only)"
    step weft-bench-gpu 90 120 "$weft" bench-gpu "${sizes[@]:0:6}"
    $py - "$logs/weft-bench-gpu.log" >"$work/weft.jsonl" <<'EOF'
import json, re, sys
for l in open(sys.argv[1]):
    m = re.match(r"\| (nbody_step|saxpy) \| (N = )?(2\^\d+|\d+)[^|]*\| ([\d.]+) ms \| ([\d.]+) (\S+) \|", l)
    if m:
        size = m.group(3)
        n = 2 ** int(size[2:]) if size.startswith("2^") else int(size)
        w = "nbody" if m.group(1) == "nbody_step" else "saxpy"
        print(json.dumps({"impl": "weft", "workload": w, "n": n, "size": ("N = " if w == "nbody" else "") + size,
                          "host_ms": float(m.group(4)), "event_ms": None, "rate": float(m.group(5)),
                          "unit": m.group(6), "check": "checked by bench-gpu (an older build: no details)"}))
EOF
  fi
  sed -n '1,12p' "$logs/weft-bench-gpu.log" | grep -E '^\||^GPU|error' | sed 's/^/   /'
  if [ -s "$work/weft.jsonl" ]; then
    cat "$work/weft.jsonl" >>"$jl"
  else
    errrow weft "bench-gpu exit $(rc weft-bench-gpu): $(tail -n 1 "$logs/weft-bench-gpu.log")"
  fi
else
  errrow weft "no weft binary"
fi
peers="numba triton cupy cupy-ops"
[ -n "$dry" ] && peers="numba"
for p in $peers; do
  case $p in triton) want=100 ;; numba) want=70 ;; *) want=45 ;; esac
  if [ -n "$dry" ]; then
    NUMBA_ENABLE_CUDASIM=1 step "peer-$p" 60 30 $py benches/gpu/peers.py --only "$p" "${sizes[@]}"
  else
    step "peer-$p" "$want" 40 $py benches/gpu/peers.py --only "$p" "${sizes[@]}"
  fi
done
if [ -n "$weft" ] && [ "$(left)" -gt 40 ]; then
  step weft-bench 75 25 "$weft" bench --backend "$backend" ${dry:+--quick}
  grep -E '^(workload|saxpy|nbody|transcendental|atomic|particles|launch)' "$logs/weft-bench.log" | sed 's/^/   /'
else
  echo "   weft bench --backend $backend: skipped (time)"
fi
cp "$jl" "$OUT/bench.jsonl"

# ==== C: tables
{
  echo "# gpu-check $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "GPU: ${gpu:-unknown}; weft: $build; tree $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo
  echo "| check | result |"
  echo "|---|---|"
  echo "| conform --backend $backend | $(summary conform) |"
  echo "| conform --backend $backend --layout soa | $(summary conform_soa) |"
  echo "| conform --backend $backend --fast-math | $(summary conform_fast) |"
  echo "| conform grad --backend $backend | $(summary conform_grad) |"
  echo "| conform conformance/grad --backend $backend | $(summary conform_grad_own) |"
  echo "| run --checked (oob_read) | $checked |"
  echo "| Warp 1.19 tests on $device (21 files) | $warp_note |"
  echo
  $py benches/gpu/table.py "$jl"
} >"$OUT/table.md" 2>&1
tar -czf "$OUT/logs.tar.gz" -C "$work" logs 2>/dev/null
say "tables (also in $OUT/table.md)"
cat "$OUT/table.md"
echo "gpu-check: done in $((SECONDS - start)) s"
exec >&- 2>&-
wait "$teepid" 2>/dev/null
exit 0
