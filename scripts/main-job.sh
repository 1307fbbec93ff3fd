#!/usr/bin/env bash
# The main job on the shipped default configurations: generate Verilog, lint it, co-simulate
# it in lockstep against the reference models, and report its area.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-tools.sh
cargo build --release --quiet
exec target/release/warpforge flow configs/warp-sched.toml configs/simt-stack.toml "$@"
