#!/usr/bin/env bash
# The demo: compiles the seed's N-body kernel (examples/nbody.py), runs it on
# the CPU JIT on all cores, prints steps/s and the relative energy drift, and
# renders the bodies to out/nbody/frame_0000.png (see README, "Examples").
# Extra arguments go to the example (e.g. --n 4096 --steps 200).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cc >/dev/null || { apt-get update -qq && apt-get install -y -qq build-essential; }
cargo run --release --example nbody -- "$@"
