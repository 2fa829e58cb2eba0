#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Import benchmark on the GPU machine. Generates our own 100-task corpus in KernelBench's format
# (bench/import/make_corpus.py: level1/ 64 single ops, level2/ 36 fusions, KernelBench-sized
# shapes), measures it (bytes, FLOPs, one timed forward per task on CUDA), imports it with
# `kernelsieve-cli import-kernelbench` with 4 and 8 workers (tracing on CUDA), timed, runs the
# engine on what the last import wrote (CUDA, 5 seeds), and imports a task whose trace bakes in a
# device on the CPU, then runs it on CUDA.
#
# Usage: OUT=/tmp/x bench/import/run_import.sh         (carry .deps; nothing else is needed)
#   KB=DIR        import DIR instead of the generated corpus (a level folder, or a folder of level*/)
#   SCALE=K       generate the corpus with --scale-down K (default 1: full size)
#   JOBS="4 8"    worker counts to time;  FILTER_S=400  time limit of the engine pass (s)
#   CLI=PATH      use this kernelsieve-cli instead of building one;  PY=PATH  python with torch
#   DEVICE=cpu    trace and run on the CPU (a smoke test of this script on a machine without a GPU)
#
# $OUT gets 8 files: build.log, corpus.txt (environment, per-task sizes and forward times),
# import-j<N>.txt per worker count, kb-filter.{json,csv,log}, dev.txt. Delete JOBS entries beyond
# two to keep the count at 8.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}
WORK=${WORK:-/tmp/ks-import}
JOBS=${JOBS:-4 8}
SCALE=${SCALE:-1}
mkdir -p "$OUT" "$WORK"
export TORCH_CUDA_ARCH_LIST=9.0 PYTHONUNBUFFERED=1
PY=${PY:-$(command -v python3)}
DEVICE=${DEVICE:-cuda}
now() { date +%s.%N; }
secs() { "$PY" -c "print(round($2 - $1, 1))"; }

if [ -z "${CLI:-}" ]; then
    t0=$(now)
    { cmake -S . -B build/gpu-imp -G Ninja -DCMAKE_BUILD_TYPE=Release -DKS_WITH_GUI=OFF -DKS_WITH_CUDA=OFF \
            -DKS_BUILD_TESTS=OFF -DKS_TORCH_PYTHON="$PY" && ninja -C build/gpu-imp -j"$(nproc)" kernelsieve-cli; } \
        >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED|Error" "$OUT/build.log" | head -20; exit 1; }
    echo "build: $(secs "$t0" "$(now)") s"
    CLI=build/gpu-imp/bin/kernelsieve-cli
else
    echo "using $CLI" >"$OUT/build.log"
fi

# The corpus: generated here unless KB names a folder.
if [ -z "${KB:-}" ]; then
    KB=$WORK/corpus
    "$PY" bench/import/make_corpus.py "$KB" --clean --scale-down "$SCALE" || exit 1
fi
{
    $CLI --version
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
    echo "cores: $(nproc); python: $PY; corpus: $KB (scale-down $SCALE)"
    echo
    if [ "$KB" = "$WORK/corpus" ]; then
        "$PY" bench/import/make_corpus.py "$KB" --report --scale-down "$SCALE"
        echo
        "$PY" bench/import/make_corpus.py "$KB" --check --device "$DEVICE" --scale-down "$SCALE"
    fi
} >"$OUT/corpus.txt" 2>&1
head -4 "$OUT/corpus.txt"
grep -E "^largest task|tasks ran on|ERROR" "$OUT/corpus.txt"
"$PY" - "$OUT/corpus.txt" <<'PY'
import re, sys
rows = [l.split() for l in open(sys.argv[1]) if re.match(r"L\d-\d+ ", l) and len(l.split()) == 5]
if rows:
    ms = sorted(float(r[3]) for r in rows)
    print(f"forward: median {ms[len(ms) // 2]:.2f} ms, max {ms[-1]:.2f} ms over {len(ms)} tasks")
PY

# Level folders to import: KB itself, or its level*/ subfolders.
folders=()
for d in "$KB"/level*/; do [ -d "$d" ] && folders+=("${d%/}"); done
[ ${#folders[@]} -eq 0 ] && folders=("$KB")

for jobs in $JOBS; do
    rm -rf "$WORK/kb-j$jobs"
    : >"$OUT/import-j$jobs.txt"
    total=0
    for f in "${folders[@]}"; do
        s=$(now)
        $CLI import-kernelbench "$f" --out "$WORK/kb-j$jobs" --jobs "$jobs" --python "$PY" \
            --trace-device "$DEVICE" >>"$OUT/import-j$jobs.txt" 2>&1
        rc=$?
        w=$(secs "$s" "$(now)")
        total=$("$PY" -c "print(round($total + $w, 1))")
        echo "import $(basename "$f") --jobs $jobs: exit $rc, wall $w s; $(grep -E 'files imported' "$OUT/import-j$jobs.txt" | tail -1)"
    done
    echo "import --jobs $jobs: $total s for all folders; $(grep -c '^ok' "$OUT/import-j$jobs.txt") ok," \
         "$(grep -c '^error' "$OUT/import-j$jobs.txt") errors, $(grep -c "differs from robust-kbench's draws" "$OUT/import-j$jobs.txt") not seed-exact"
done
grep "^error" "$OUT/import-j${JOBS##* }.txt" | head -20
last=$WORK/kb-j${JOBS##* }

# The engine on the imported tasks, on the GPU (results file kept after every task).
s=$(now)
timeout "${FILTER_S:-400}" $CLI filter --suite "$last" --device "$DEVICE" --seeds 5 --out "$OUT/kb-filter.json" \
    --csv "$OUT/kb-filter.csv" -q >"$OUT/kb-filter.log" 2>&1
echo "filter (5 seeds, $DEVICE): exit $?, wall $(secs "$s" "$(now)") s; $(grep -c ERROR "$OUT/kb-filter.log") errors"
grep ERROR "$OUT/kb-filter.log" | head -10
tail -2 "$OUT/kb-filter.log"

# Device constants: traced on the CPU, run on CUDA.
rm -rf "$WORK/dev" && mkdir -p "$WORK/dev/level1"
cat >"$WORK/dev/level1/200_Device_constants.py" <<'PYTASK'
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
PYTASK
cp tests/data/kernelbench_fixture/level1/*.py "$WORK/dev/level1/"
rm -rf "$WORK/dev-out"
{
    $CLI import-kernelbench "$WORK/dev/level1" --out "$WORK/dev-out" --trace-device cpu --python "$PY"
    echo "cpu-traced import: exit $?"
    $CLI filter --suite "$WORK/dev-out" --device "$DEVICE" --seeds 5 --out "$WORK/dev-filter-cuda.json"
    echo "cpu-traced tasks on $DEVICE: exit $?"
} >"$OUT/dev.txt" 2>&1
grep -E "files imported|exit|ERROR|issue|L1-200 |L1-23 |L1-113 " "$OUT/dev.txt" | head -12
