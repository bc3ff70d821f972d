#!/usr/bin/env bash
# Coverage-guided fuzzing (docs/reliability.md): runs every cargo-fuzz
# target of fuzz/ under libFuzzer with AddressSanitizer, SECONDS in total
# split evenly between them (default 600), from the seeds `weft fuzz-seeds`
# makes of the conformance corpus plus the corpus each target has grown in
# fuzz/corpus/<target>/ (kept between runs, not committed). A crash, a
# panic, a leak, or an input running over 10 s fails the target; its input
# is left in fuzz/artifacts/<target>/. Prints executions, coverage and the
# result per target; exits 1 when a target failed.
#
#   scripts/fuzz.sh 3600                # an hour over all targets
#   scripts/fuzz.sh 60 pipeline         # one target
#
# cargo fuzz needs a nightly toolchain (-Zsanitizer): WEFT_FUZZ_TOOLCHAIN
# (default `nightly`). With WEFT_FUZZ_INSTALL=1 (CI) it installs that
# toolchain and cargo-fuzz when they are missing. WEFT_BIN: a built `weft`
# to make the seeds with (default: `cargo run --release`).
set -euo pipefail
cd "$(dirname "$0")/.."

total="${1:-600}"
shift || true
all=(frontend pipeline ir_text ir_passes case_loader cache_entry)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all[@]}"); fi
per=$(( total / ${#targets[@]} ))
[ "$per" -ge 1 ] || per=1

toolchain="${WEFT_FUZZ_TOOLCHAIN:-nightly}"
if ! cargo "+$toolchain" fuzz --version >/dev/null 2>&1; then
  if [ "${WEFT_FUZZ_INSTALL:-0}" = 1 ]; then
    rustup toolchain install "$toolchain" --profile minimal
    cargo "+$toolchain" fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked
  else
    echo "error: needs \`cargo +$toolchain fuzz\` (rustup toolchain install $toolchain; cargo install cargo-fuzz), or WEFT_FUZZ_INSTALL=1" >&2
    exit 2
  fi
fi

corpus="${WEFT_CONFORMANCE_DIR:-$PWD/../shared/conformance}"
[ -d "$corpus/cases" ] || { echo "error: conformance corpus not found at $corpus (set WEFT_CONFORMANCE_DIR)" >&2; exit 2; }
target_dir="${CARGO_TARGET_DIR:-$PWD/target}/fuzz"
seeds=fuzz/seeds
rm -rf "$seeds"
if [ -n "${WEFT_BIN:-}" ]; then
  "$WEFT_BIN" fuzz-seeds "$corpus" "$seeds"
else
  cargo run -q --release --bin weft -- fuzz-seeds "$corpus" "$seeds"
fi

echo "== cargo +$toolchain fuzz build (AddressSanitizer)"
cargo "+$toolchain" fuzz build --target-dir "$target_dir"

dict_of() {
  case "$1" in
    frontend|pipeline) echo "-dict=fuzz/dict/warp.dict" ;;
    ir_text|ir_passes) echo "-dict=fuzz/dict/ir.dict" ;;
    *) echo "" ;;
  esac
}

logs=$(mktemp -d)
trap 'rm -rf "$logs" "$seeds"' EXIT
failed=()
summary=()
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  echo "== $t: ${per} s"
  log="$logs/$t.log"
  status=0
  cargo "+$toolchain" fuzz run --target-dir "$target_dir" "$t" "fuzz/corpus/$t" "$seeds/$t" -- \
    -max_total_time="$per" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="fuzz/artifacts/$t/" $(dict_of "$t") >"$log" 2>&1 || status=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n 1)
  if [ "$status" = 0 ]; then
    result=ok
  else
    result="FAILED (exit $status)"
    failed+=("$t")
    grep -E 'ERROR:|panicked at|Test unit written to' "$log" | head -n 5 || tail -n 20 "$log"
  fi
  summary+=("$(printf '%-12s %8s execs  %-30s %s' "$t" "${execs:-?}" "${cov:-cov: ?}" "$result")")
done
echo "== summary (${per} s per target)"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]} (inputs in fuzz/artifacts/)"
  exit 1
fi
