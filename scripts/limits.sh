#!/usr/bin/env bash
# The limits of docs/reliability.md at the issue's full sizes: a module of
# 10 000 kernels and a kernel of 100 000 lines (CI runs tests/limits.rs at
# 2 000 and 10 000), with the rest of tests/limits.rs, in a release build.
#
#   scripts/limits.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WEFT_LIMITS_FULL=1 cargo test --release -p weft-cli --test limits -- --nocapture "$@"
