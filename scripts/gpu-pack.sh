#!/usr/bin/env bash
# Assembles gpu-carry/ (git-ignored), what scripts/gpu-check.sh needs on a
# lent GPU machine without network or cargo:
#   weft.xz                the weft binary given (static LLVM: no libLLVM
#                          there), debug info stripped unless WEFT_PACK_NOSTRIP=1
#   weft-*.whl             the Python package (WHEEL, default the newest dist/weft-*.whl)
#   warp-tests.tar.xz      warp/tests/**/*.py of the warp-lang 1.19.0 wheel
#                          (pip download --no-deps, or $WEFT_WARP_TESTS_DIR /
#                          ~/.cache/weft/warp-1.19.0/warp/tests)
#   conformance.tar.xz     the corpus ($WEFT_CONFORMANCE_DIR or ../shared/conformance)
#   MANIFEST               commit, sources, sizes, sha256
# and prints the sizes: the tree plus gpu-carry must stay under the 64 MiB a
# run may carry (aim for 55).
#
# usage: scripts/gpu-pack.sh WEFT_BINARY [WHEEL]
# then:  run `bash scripts/gpu-check.sh` there with carry ["gpu-carry"].
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${1:-}
[ -n "$bin" ] && [ -f "$bin" ] || { echo "usage: scripts/gpu-pack.sh WEFT_BINARY [WHEEL]" >&2; exit 2; }
whl=${2:-$(ls -t dist/weft-*.whl 2>/dev/null | head -n1)}
[ -n "$whl" ] && whl=$(realpath "$whl")
corpus=${WEFT_CONFORMANCE_DIR:-$root/../shared/conformance}
carry=$root/gpu-carry
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
rm -rf "$carry"
mkdir -p "$carry"
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
size() { stat -c %s "$1"; }

# -- the binary
if ldd "$bin" 2>/dev/null | grep -qi 'libLLVM'; then
  echo "warning: $bin links libLLVM dynamically; the GPU machine has none:" >&2
  ldd "$bin" | grep -i llvm >&2
fi
# Shared libraries beyond the C/C++ runtime must exist on the GPU machine.
extra="$(ldd "$bin" 2>/dev/null | awk '{ print $1 }' | grep -vE '^(linux-vdso|/lib64/ld-linux|libc\.|libm\.|libdl\.|librt\.|libpthread\.|libgcc_s\.|libstdc\+\+\.)' | tr '\n' ' ')"
if [ -n "$extra" ]; then
  # Carried too (gpu-check uses them only if weft or the package does not
  # load without them): those of the binary and of the wheel's extension.
  mkdir -p "$carry/lib"
  libs="$(ldd "$bin" 2>/dev/null | awk '$3 ~ /^\// { print $3 }')"
  if [ -n "$whl" ] && [ -f "$whl" ]; then
    (cd "$tmp" && python3 -c 'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); [z.extract(n, "whl") for n in z.namelist() if n.endswith(".so")]' "$whl")
    libs="$libs $(find "$tmp/whl" -name '*.so' -exec ldd {} \; 2>/dev/null | awk '$3 ~ /^\// { print $3 }')"
  fi
  for l in $(echo "$libs" | tr ' ' '\n' | sort -u); do
    case "$(basename "$l")" in libc.* | libm.* | libdl.* | librt.* | libpthread.* | libgcc_s.* | libstdc++.* | ld-linux*) continue ;; esac
    cp -L "$l" "$carry/lib/"
  done
  echo "note: weft needs $extra(copies in gpu-carry/lib: $(ls "$carry/lib" | tr '\n' ' ')$(du -sh "$carry/lib" | cut -f1))" >&2
fi
cp "$bin" "$tmp/weft"
if [ -z "${WEFT_PACK_NOSTRIP:-}" ] && command -v strip >/dev/null 2>&1; then
  strip --strip-debug "$tmp/weft" 2>/dev/null || true
fi
"$tmp/weft" --version >/dev/null 2>&1 || echo "warning: $bin does not start here" >&2
xz -T0 -9 -c "$tmp/weft" >"$carry/weft.xz" || exit 1
echo "weft: $(mib "$(size "$bin")") -> stripped $(mib "$(size "$tmp/weft")") -> weft.xz $(mib "$(size "$carry/weft.xz")")"

# -- the wheel
if [ -n "$whl" ] && [ -f "$whl" ]; then
  cp "$whl" "$carry/"
  echo "wheel: $(basename "$whl") $(mib "$(size "$whl")")"
else
  echo "warning: no wheel (dist/weft-*.whl): the Warp tests will not run there" >&2
fi

# -- Warp's tests (.py only; never committed)
wt=${WEFT_WARP_TESTS_DIR:-}
if [ -z "$wt" ] && [ -d "${XDG_CACHE_HOME:-$HOME/.cache}/weft/warp-1.19.0/warp/tests" ]; then
  wt=${XDG_CACHE_HOME:-$HOME/.cache}/weft/warp-1.19.0/warp/tests
fi
if [ -z "$wt" ]; then
  if python3 -m pip download -q --no-deps warp-lang==1.19.0 -d "$tmp/dl" >"$tmp/pip.log" 2>&1; then
    python3 - "$tmp/dl" "$tmp/x" <<'EOF'
import os, sys, zipfile
dl, out = sys.argv[1:]
whl = next(os.path.join(dl, f) for f in os.listdir(dl) if f.endswith(".whl"))
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        if n.startswith("warp/tests/") and n.endswith(".py"):
            z.extract(n, out)
EOF
    wt=$tmp/x/warp/tests
  else
    echo "warning: pip download warp-lang==1.19.0 failed:" >&2
    tail -n 3 "$tmp/pip.log" >&2
  fi
fi
if [ -n "$wt" ] && [ -d "$wt" ]; then
  (cd "$wt/../.." && find warp/tests -name '*.py' -print0 | tar --null -T - -cf - | xz -T0 -9 >"$carry/warp-tests.tar.xz")
  echo "warp tests: $(cd "$wt" && find . -name '*.py' | wc -l) files from $wt -> $(mib "$(size "$carry/warp-tests.tar.xz")")"
fi

# -- the corpus
if [ -d "$corpus" ]; then
  tar -C "$(dirname "$corpus")" -cf - "$(basename "$corpus")" | xz -T0 -9 >"$carry/conformance.tar.xz"
  # gpu-check unpacks it as conformance/.
  if [ "$(basename "$corpus")" != conformance ]; then echo "warning: corpus dir is not named conformance" >&2; fi
  echo "corpus: $corpus ($(du -sh "$corpus" | cut -f1)) -> $(mib "$(size "$carry/conformance.tar.xz")")"
else
  echo "warning: no corpus at $corpus" >&2
fi

# -- manifest and sizes
{
  echo "packed $(date -u '+%Y-%m-%d %H:%M UTC') at $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo '+dirty')"
  echo "weft: $(realpath "$bin") ($("$tmp/weft" --version 2>/dev/null | head -n1))"
  (cd "$carry" && find . -type f ! -name MANIFEST | sort | while read -r f; do echo "$(sha256sum "$f" | cut -c1-16) $(stat -c %s "$f") ${f#./}"; done)
} >"$carry/MANIFEST"
c=$(du -sb "$carry" | cut -f1)
t=$(git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
echo "gpu-carry: $(mib "$c"); tree (tracked and untracked, not ignored): $(mib "$t"); together $(mib $((c + t))) (limit 64 MiB, aim under 55)"
[ $((c + t)) -gt $((55 * 1048576)) ] && echo "warning: over 55 MiB" >&2
exit 0
