#!/usr/bin/env bash
# The whole test suite: unit tests, spec vectors on model and RTL, constrained-random lockstep
# (≥ 10^6 cycles per unit and per warp-sched policy), lint of every shipped configuration,
# CLI error handling.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-tools.sh
# Most of the suite's time is Verilator builds of designs run for a few seconds each: -O1
# builds them in 60–75 % of -O2's time (README, "Verilator bridge").
export WARPFORGE_CXX_OPT="${WARPFORGE_CXX_OPT:-1}"
cargo test --workspace --no-fail-fast "$@"
