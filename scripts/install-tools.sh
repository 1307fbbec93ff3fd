#!/usr/bin/env bash
# Install the external tools warpforge drives, from Debian's packages, when they are missing.
set -euo pipefail
need=()
for pair in verilator:verilator yosys:yosys iverilog:iverilog nextpnr-ice40:nextpnr-ice40; do
  tool=${pair%%:*}; pkg=${pair##*:}
  command -v "$tool" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${need[*]}" >&2
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${need[@]}" >/dev/null
