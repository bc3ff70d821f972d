#!/usr/bin/env bash
# Checks the wheel scripts/wheel.sh made (dist/weft-*.whl, or $1): installs
# it with NumPy into a fresh venv ($WHEEL_TEST_VENV, default /tmp/whl-venv),
# checks that the extension needs no LLVM (readelf, ldd), then runs N-body
# from Python with LLVM hidden: as root, in a private mount namespace
# (`unshare -m`) where libLLVM*, libz3, libxml2 and /usr/lib/llvm-* are
# covered (nothing changes outside it); otherwise with LD_LIBRARY_PATH empty
# only. N-body runs on `cpu` (tiering up to the vector tier once hot, and
# again tiered up at once), `llvm-cpu` (the vector tier from the first
# launch) and, when a CUDA driver is found, `cuda`. NumPy comes from
# dist/wheelhouse (scripts/wheel.sh fills it) when it has one, else from
# the network.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
whl="${1:-$(ls dist/weft-*.whl 2>/dev/null | head -1)}"
[ -f "$whl" ] || { echo "wheel-test.sh: no wheel (run scripts/wheel.sh)" >&2; exit 1; }
whl="$(cd "$(dirname "$whl")" && pwd)/$(basename "$whl")"
venv="${WHEEL_TEST_VENV:-/tmp/whl-venv}"
n="${WHEEL_TEST_N:-2048}"
steps="${WHEEL_TEST_STEPS:-20}"

# From /tmp, so that only the installed package can be imported.
check() {
  cd /tmp
  export LD_LIBRARY_PATH=
  unset LLVM_SYS_191_PREFIX
  "$venv/bin/python" -c '
import weft
print("weft", weft.__version__, "from", weft.__file__)
names = weft.device_names()
print("devices:", names)
assert "llvm-cpu" in names and "cuda" in names, "the wheel lacks the llvm feature"
info = getattr(weft, "build_info", None)
if info:
    print("build_info:", info())
'
  for dev in cpu llvm-cpu; do
    "$venv/bin/python" "$root/examples/python/nbody.py" "$n" "$steps" "$dev"
  done
  echo "cpu, tiered up to the vector tier at the first launch (WEFT_TIER_UP_MS=0):"
  WEFT_TIER_UP_MS=0 "$venv/bin/python" "$root/examples/python/nbody.py" "$n" "$steps" cpu
  local why
  if why=$("$venv/bin/python" -c 'import weft; weft.Device("cuda")' 2>&1); then
    "$venv/bin/python" "$root/examples/python/nbody.py" "$n" "$steps" cuda
  else
    echo "cuda: not run ($(echo "$why" | tail -1))"
  fi
}

if [ "${2:-}" = --inside ]; then
  # In the private mount namespace: cover LLVM and what only LLVM uses.
  hidden=()
  for f in /usr/lib/x86_64-linux-gnu/libLLVM* /usr/lib/x86_64-linux-gnu/libz3.so* \
           /usr/lib/x86_64-linux-gnu/libxml2.so*; do
    if [ -f "$f" ] && [ ! -L "$f" ]; then mount --bind /dev/null "$f"; hidden+=("$(basename "$f")"); fi
  done
  for d in /usr/lib/llvm-*; do
    if [ -d "$d" ]; then mount -t tmpfs none "$d"; hidden+=("$d"); fi
  done
  echo "hidden: ${hidden[*]:-nothing (no LLVM here)}"
  check
  exit
fi

echo "== fresh venv $venv: $(basename "$whl") ($(du -h "$whl" | cut -f1))"
rm -rf "$venv"
python3 -m venv "$venv"
offline=()
[ -n "$(ls dist/wheelhouse/numpy-* 2>/dev/null)" ] && offline=(--no-index --find-links dist/wheelhouse)
"$venv/bin/pip" install -q "${offline[@]}" "$whl" numpy
so=$("$venv/bin/python" -c 'import importlib.util as u; print(u.find_spec("weft._native").origin)')
echo "extension: $so ($(du -h "$so" | cut -f1))"
echo "NEEDED: $(readelf -d "$so" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
ldd "$so"
if ldd "$so" | grep -E 'LLVM|z3|xml2|not found'; then
  echo "wheel-test.sh: the extension needs the libraries above" >&2
  exit 1
fi

if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  echo "== N-body with LLVM hidden (private mount namespace)"
  WHEEL_TEST_VENV="$venv" unshare -m --propagation private "$0" "$whl" --inside
else
  echo "== N-body with LD_LIBRARY_PATH empty (not root: LLVM not hidden)"
  (check)
fi
echo "wheel-test.sh: ok"
