#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Import benchmark on the GPU machine: kernelsieve-cli import-kernelbench on a KernelBench level
# folder (KB, default out/kb/level1) with 4 and 8 workers, timed; then the engine on what it
# imported (CUDA, 5 seeds), and a task whose trace bakes in a device, traced on the CPU and run on
# CUDA. Logs go to $OUT. Usage: OUT=/tmp/x KB=path/to/level1 bench/import/run_import.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}
KB=${KB:-out/kb/level1}
WORK=${WORK:-/tmp/ks-import}
JOBS=${JOBS:-4 8}
mkdir -p "$OUT" "$WORK"
export TORCH_CUDA_ARCH_LIST=9.0
t0=$(date +%s.%N)
cmake -S . -B build/gpu-imp -G Ninja -DCMAKE_BUILD_TYPE=Release -DKS_WITH_GUI=OFF -DKS_WITH_CUDA=OFF \
      -DKS_BUILD_TESTS=OFF -DKS_TORCH_PYTHON="$(command -v python3)" >"$OUT/configure.log" 2>&1 \
    || { tail -30 "$OUT/configure.log"; exit 1; }
ninja -C build/gpu-imp -j"$(nproc)" kernelsieve-cli >"$OUT/build.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build.log" | head -20; exit 1; }
echo "build: $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"
CLI=build/gpu-imp/bin/kernelsieve-cli
{ $CLI --version; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; } | tee "$OUT/env.txt"

for jobs in $JOBS; do
    rm -rf "$WORK/kb-j$jobs"
    s=$(date +%s.%N)
    $CLI import-kernelbench "$KB" --out "$WORK/kb-j$jobs" --jobs "$jobs" >"$OUT/import-j$jobs.txt" 2>&1
    rc=$?
    e=$(date +%s.%N)
    echo "import --jobs $jobs: exit $rc, wall $(python3 -c "print(round($e - $s, 1))") s; $(tail -2 "$OUT/import-j$jobs.txt" | head -1)"
    grep -c "^ok" "$OUT/import-j$jobs.txt"
done
grep "^error" "$OUT/import-j${JOBS##* }.txt" | head -20
last=$WORK/kb-j${JOBS##* }

# The engine on the imported tasks, on the GPU (results file kept after every task).
timeout "${FILTER_S:-240}" $CLI filter --suite "$last" --device cuda --seeds 5 --out "$OUT/kb-filter.json" \
    --csv "$OUT/kb-filter.csv" -q >"$OUT/kb-filter.log" 2>&1
echo "filter: exit $?; $(grep -c 'flags\|flagged' "$OUT/kb-filter.log") tasks reported; $(grep -c ERROR "$OUT/kb-filter.log") errors"
grep ERROR "$OUT/kb-filter.log" | head -10
tail -2 "$OUT/kb-filter.log"

# Device constants: traced on the CPU, run on CUDA.
mkdir -p "$WORK/dev/level1"
cat >"$WORK/dev/level1/1_Device_constants.py" <<'PY'
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        ramp = torch.arange(x.shape[1], device=x.device, dtype=x.dtype)
        return x * ramp + torch.ones(x.shape[0], 1, device=x.device)


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return []
PY
cp tests/data/kernelbench_fixture/level1/*.py "$WORK/dev/level1/"
rm -rf "$WORK/dev-out"
$CLI import-kernelbench "$WORK/dev/level1" --out "$WORK/dev-out" --trace-device cpu >"$OUT/dev-import.txt" 2>&1
echo "cpu-traced import: exit $?"; tail -2 "$OUT/dev-import.txt" | head -1
$CLI filter --suite "$WORK/dev-out" --device cuda --seeds 5 --out "$OUT/dev-filter-cuda.json" >"$OUT/dev-filter-cuda.txt" 2>&1
echo "cpu-traced tasks on cuda: exit $?"; grep -E "ERROR|L1-1 |L1-23 |L1-113" "$OUT/dev-filter-cuda.txt" | head
