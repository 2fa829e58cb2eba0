#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kernel run on the GPU machine: GPU tests (every variant on 100 seeds + edge cases, every cheat
# caught), then `kernelsieve-cli bench` with the defaults (25 warm-ups, 2000 timed runs) at full
# shapes. Results go to $OUT (gpu-tests.log, bench.json, bench.log).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}
mkdir -p "$OUT"
(cd build/gpu && timeout 400 ctest -L gpu --output-on-failure -j1) >"$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$?"; grep -E "tests passed|Failed|Passed|SKIP" "$OUT/gpu-tests.log" | tail -8
timeout 400 build/gpu/bin/kernelsieve-cli bench --out "$OUT/bench.json" ${BENCH_ARGS:-} >"$OUT/bench.log" 2>&1
echo "bench rc=$?"; grep -vE "^L[12]-[0-9r]+: " "$OUT/bench.log" | tail -30
