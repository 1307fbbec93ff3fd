#!/usr/bin/env bash
# The whole test suite: unit tests, spec vectors on model and RTL, constrained-random lockstep
# (≥ 10^6 cycles per unit and per warp-sched policy), lint of every shipped configuration,
# CLI error handling.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-tools.sh
cargo test --workspace --no-fail-fast "$@"
