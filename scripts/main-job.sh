#!/usr/bin/env bash
# The main job on every unit's shipped default configuration: generate Verilog, lint it,
# co-simulate it in lockstep against its reference model (10^5 cycles a unit; kernel-level
# units as their flow does), measure its area (at most 10 minutes of Yosys a unit; a unit past
# that is listed as not measured), and end with the path of the area report (HTML).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-tools.sh
cargo build --release --quiet
exec target/release/warpforge flow --cycles 100000 --area-limit 600 "$@"
