#!/usr/bin/env bash
# The main job on the shipped default configurations: for every unit's default configuration
# (`warpforge units`), generate Verilog, lint it, co-simulate it in lockstep against its
# reference model (10^5 cycles a unit; kernel-level units as their flow does), measure its
# area, and end with the path of the area report (HTML).
#
# Yosys gets at most 10 minutes a unit here. The largest defaults do not finish their area in
# that time — the thesis SM, `crown` and `crown-barrier` (the 16 × 8 barrier table), `dtm-mtg`
# and `dtm` (the 1024-entry, 8-port MTG) — and are listed in the report under "Not measured"
# with the reason; `warpforge area <unit>` measures one on its own. The thesis SM's lint alone
# takes ~8 minutes and ~4 GB; the whole job takes well over an hour.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-tools.sh
cargo build --release --quiet
exec target/release/warpforge flow --cycles 100000 --area-limit 600 "$@"
