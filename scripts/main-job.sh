#!/usr/bin/env bash
# The main job on the shipped default configurations: generate Verilog, lint it, co-simulate
# it in lockstep against its reference model (10^5 cycles a unit; kernel-level units as their
# flow does), measure its area (at most 10 minutes of Yosys a unit; a unit past that is listed
# as not measured), and end with the path of the area report (HTML).
#
# Units: every unit's default configuration whose flow has been run to the end here. Not yet
# in the list, each because one of its Yosys runs takes longer than a main job should: `sm`
# (the thesis SM: its lint check alone took 7 min 41 s and 3.7 GB), `crown` and
# `crown-barrier` (the 16 × 8 barrier table), `dtm-mtg` and `dtm` (the 1024-entry, 8-port MTG);
# and `msap-noc`, the newest unit, whose flow has not yet been run to the end here.
# `warpforge flow` with no unit runs every default, those included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-tools.sh
cargo build --release --quiet
UNITS=(
  warp-sched simt-stack dwr-pst dwr-ilt dwr-sco dwr l1d-bypass ram sm-alu
  crown-pool crown-lookup crown-l2 msap-pl msap-arbiter msap-mc msap-router dtm-mtt dtm-tb
)
exec target/release/warpforge flow "${UNITS[@]}" --cycles 100000 --area-limit 600 "$@"
