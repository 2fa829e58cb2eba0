#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 17 on a real KernelBench checkout (not our corpus): import each level, then filter each level
# with all six criteria, with the four statistical ones alone (CPU generator and --rng device), and
# robust-kbench's formulas in plain Python (bench/engine/rkb_formulas.py) against our statistical
# filters on the same first 25 level-2 files. The checkout is not in this repository (its files are
# not ours to commit): put it in the git-ignored .kb/ here and carry it (`carry: [".deps", ".kb"]`).
# Usage: [KB=.kb/sf/KernelBench] bench/gpu/run_kernelbench.sh [steps...]
#   steps: import six stat rngdevice rkb (default: all, in that order); LEVELS="1 2 3" picks levels.
#   Step `slowdraw` (not in the default): all six criteria with KS_FAST_DRAW=0, PyTorch's own
#   sampling kernels instead of ks/core/fastdraw.h (the same samples; a same-lease reference).
#   Step `thp` (not in the default): all six criteria with THP_MEM_ALLOC_ENABLE=1 (PyTorch's CPU
#   allocator asks for transparent huge pages: fresh operand tensors fault in fewer, larger pages);
#   since lease 12 the filter's workers get it by default, and step `nothp` (THP_MEM_ALLOC_ENABLE=0)
#   is the same-lease reference without them.
#   Step `share` (not in the default): all six criteria with --workers-per-gpu 2 (one worker's
#   analyses beside the other's statistics; filter 5 times with the GPU to itself).
# Expects build/gpu from bench/gpu/build.sh kernelsieve-cli kernelsieve-sandbox. Files: $OUT/kb.tgz
# (packed after every step, so a run cut short brings back what it did); wall times in summary.txt.
# $T_SIX, $T_STAT bound each level's filter run (default 300 and 200 s), $T_IMPORT each import (3000 s),
# $T_RKB the Python formulas (500 s). $FILTER_ARGS go to every filter run (e.g. "--shard 1/2": level 1's
# six criteria take about 10 minutes on an H100, more than one device call; merge the shards with
# `kernelsieve-cli merge`). WORK=$PWD/build/kb keeps the import for the next call on a warm machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}
KB=${KB:-.kb/sf/KernelBench}
WORK=${WORK:-/tmp/ks-kb}
RES=$WORK/out
CLI=build/gpu/bin/kernelsieve-cli
PY=${PY:-$(command -v python3)}
STEPS=${*:-import six stat rngdevice rkb}
LEVELS=${LEVELS:-1 2 3}
export PYTHONUNBUFFERED=1
rm -rf "$RES"; mkdir -p "$OUT" "$WORK" "$RES"
[[ -d $KB/level1 ]] || { echo "no KernelBench checkout at $KB (levelN/ folders expected)"; exit 3; }
PACK="$OUT/kb.tgz"
source bench/gpu/steps.sh # ms, step
has() { [[ " $STEPS " == *" $1 "* ]]; }
{
    $CLI --version
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv,noheader
    nproc; free -g | head -2
    "$PY" -c 'import time;t=time.perf_counter();s=sum(i*i for i in range(10**7));print(f"python 1e7 squares: {time.perf_counter()-t:.2f} s")'
    for l in $LEVELS; do echo "level$l: $(ls "$KB/level$l"/*.py | wc -l) files"; done
    (cd "$KB" && find . -name '*.py' | sort | xargs sha256sum) >"$RES/checkout.sha256"
} >"$RES/device.txt" 2>&1
REASONS=clocks_event_reasons.active
nvidia-smi --query-gpu=$REASONS --format=csv >/dev/null 2>&1 || REASONS=clocks_throttle_reasons.active
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,memory.used,$REASONS \
    --format=csv -l 1 >"$RES/gpu-clocks.csv" 2>&1 &
SMI=$!
trap 'kill $SMI 2>/dev/null' EXIT
if has import; then
    rm -rf "$WORK/kbm"
    for l in $LEVELS; do # --jsonl: an event a file, with its seconds (the slowest are listed)
        step import-l$l timeout "${T_IMPORT:-3000}" $CLI import-kernelbench "$KB/level$l" --out "$WORK/kbm" --jobs 8 --python "$PY" \
            --trace-device cuda --jsonl
        python3 bench/gpu/import_summary.py "$RES/import-l$l.log" "level $l" | tee -a "$RES/summary.txt"
    done
fi
[[ -d $WORK/kbm ]] || { echo "nothing imported in $WORK/kbm"; exit 1; }
filter() { # name timeout level args...
    local name=$1 t=$2 l=$3; shift 3
    step "$name" timeout "$t" $CLI filter --suite "$WORK/kbm" --device cuda --seeds 5 --tasks "L$l-*" \
        --out "$RES/$name.json" --csv "$RES/$name.csv" -q ${FILTER_ARGS:-} "$@"
}
if has six; then
    for l in $LEVELS; do filter six-l$l "${T_SIX:-300}" "$l"; done
fi
if has slowdraw; then
    for l in $LEVELS; do (export KS_FAST_DRAW=0; filter slowdraw-l$l "${T_SIX:-300}" "$l"); done
fi
if has thp; then # PyTorch's CPU allocator on transparent huge pages: fewer page faults in fresh operands
    for l in $LEVELS; do (export THP_MEM_ALLOC_ENABLE=1; filter thp-l$l "${T_SIX:-300}" "$l"); done
fi
if has nothp; then # the reference: LibTorch's CPU allocator without huge pages
    for l in $LEVELS; do (export THP_MEM_ALLOC_ENABLE=0; filter nothp-l$l "${T_SIX:-300}" "$l"); done
fi
if has share; then # the analyses of one task beside the next one's statistics: two workers on the GPU
    for l in $LEVELS; do filter share-l$l "${T_SIX:-300}" "$l" --workers-per-gpu 2; done
fi
if has stat; then
    for l in $LEVELS; do filter stat-l$l "${T_STAT:-200}" "$l" --criteria stat; done
fi
if has rngdevice; then
    for l in $LEVELS; do filter rngdevice-l$l "${T_STAT:-200}" "$l" --criteria stat --rng device; done
fi
if has rkb; then
    files=$(ls "$KB"/level2/*.py | sort -V | head -25)
    ids=$(for f in $files; do n=$(basename "$f"); echo -n "L2-${n%%_*},"; done)
    # Ours first: a call limit that cuts the Python formulas still leaves their per-task lines
    # (rkb-25.log) to compare with our per-task walls (ours-25.json) on the tasks they finished.
    step ours-25 $CLI filter --suite "$WORK/kbm" --device cuda --seeds 5 --criteria stat --tasks "${ids%,}" \
        --out "$RES/ours-25.json" --csv "$RES/ours-25.csv" -q
    step rkb-25 timeout "${T_RKB:-500}" "$PY" bench/engine/rkb_formulas.py $files --csv "$RES/rkb-25.csv"
fi
