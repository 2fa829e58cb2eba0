#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 17's one-GPU speed run (bench/engine/RESULTS.md): the built-in suite and our 100-task
# corpus with all six criteria and 5 seeds, the four statistical filters alone (CPU generator and
# --rng device), and robust-kbench's formulas in plain Python (bench/engine/rkb_formulas.py) on the
# corpus's first 25 level-2 tasks against our statistical filters on the same 25, in one run.
# Step `nda`: the built-in suite and/or the corpus with --no-draw-ahead (a reference on the same lease).
# Step `share`: the built-in suite and the corpus (all six) with --workers-per-gpu N for each N in
# $SHARE (default "2 4"); with `rkb`, also ours-25 with them; with `levels` or `level3`, level 3
# (all six) with them.
# Step `nosplit`: the built-in suite and/or the corpus with KS_DRAW_SPLIT=0 (each tensor drawn on
# one thread, as before ks/core/splitdraw.h; a reference on the same lease).
# Step `nofast`: the built-in suite and/or the corpus with KS_FAST_DRAW=0 (PyTorch's own sampling
# kernels instead of ks/core/fastdraw.h: the same samples; a reference on the same lease).
# Step `ahead`: the built-in suite and/or the corpus with --draw-ahead-tasks K for each K in $AHEAD
# (default "2 3").
# Step `start`: where a short run's wall goes: `filter --criteria stat` on 25 built-in level-2 tasks,
# twice, once with KS_WARMUP=0, once with KS_EARLY_CUDA=0 (the worker's context made after LibTorch's
# start, app/early_cuda.cpp) and once with kernelsieve-engine as the driver, each line time-stamped (bench/engine/timeline.py; KS_TRACE_START
# adds the processes' start-up steps), then once under `strace -f -tt` (process
# starts and exits) where strace is installed.
# Step `hostreg`: the built-in suite and/or the corpus with PyTorch's pinned host allocator
# registering malloc'd, pre-faulted memory on 8 threads (PYTORCH_CUDA_ALLOC_CONF
# pinned_use_cuda_host_register) instead of cudaHostAlloc: a reference on the same lease.
# Step `devices`: the built-in suite with --devices 0 (workers handed tasks one by one).
# Step `repeat`: the built-in suite $REPEAT more times (default 2), all six criteria: how much
# filter 5's timings and verdicts move from run to run on one lease.
# Step `fused`: the same-lease reference for the statistics' own kernels (core/src/stats/fusedstats.cu):
# with `start`, one more time-stamped start with KS_FUSED_STATS=0 (the ATen operations); with `rkb`,
# ours-25 once more after it and once with KS_FUSED_STATS=0; with `builtin`, the built-in suite with
# KS_FUSED_STATS=0 (its flags and verdicts to compare).
# Step `alternate`: with `rkb`, ours-25 with the statistics' own kernels and with KS_FUSED_STATS=0 in
# turn, $ALT times each (default 3).
# Step `draw`: build/gpu/bin/ks_draw_bench (one 2^28-element tensor: PyTorch's kernel, the fast
# forms of ks/core/fastdraw.h, whole and split), again with THP_MEM_ALLOC_ENABLE=1 (LibTorch asks
# for transparent huge pages: a new tensor's page faults cost more than the fast draw itself here).
# Step `levels`: each level on its own, all six criteria: level 3 (step `level3` alone), then the
# corpus's level 1 and level 2 (`--tasks 'L1-*'`, `'L2-*'`). Level 3 is 50 whole models
# (bench/import/corpus_level3.py), generated,
# measured (--report, --check on CUDA), imported (timed) and filtered with all six criteria, the
# four statistical ones alone, and those with --rng device. $L3_TIMEOUT (default 420 s) bounds the
# six-criteria level-3 run.
# Step `l3repeat` (with `level3` or `levels`): level 3, all six criteria, $REPEAT more times (default 2).
# Every run also samples the GPU's clocks, power and throttle reasons once a second (gpu-clocks.csv)
# and times one Python loop on one core (device.txt).
# Step `memory`: level 3, statistics only, three times: as it is (the end_* fields say what the worker
# holds after each task), with --worker-memory 4 (fresh workers past 4 GiB) and with cuDNN's plan
# cache limited to 64 per thread (TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT): is the growth cuDNN's plans?
# Step `nocut`: level 3 with filter 6 alone, three ways on the same lease: every check runs the
# whole graph in the interpreter (KS_CUT_RUNS=0 KS_NODE_RUNS=0, as lease 4), the graph after a cut
# in the interpreter (KS_NODE_RUNS=0), and as it is (after a cut, node by node).
# Usage: bench/gpu/run_speed.sh [steps...]  (default: all of builtin corpus stat rkb; expects
# build/gpu from bench/gpu/build.sh kernelsieve-cli kernelsieve-sandbox). Files: $OUT/speed.tgz;
# each step prints its wall time (also in $OUT/summary.txt).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}
WORK=${WORK:-/tmp/ks-speed}
RES=$WORK/out # everything here, packed into $OUT/speed.tgz at the end (few files come back)
rm -rf "$RES"; mkdir -p "$OUT" "$WORK" "$RES"
CLI=build/gpu/bin/kernelsieve-cli
# The program with every command and the engine: as the filter's driver it loads LibTorch, as
# kernelsieve-cli did before app/cli_front.cpp (a reference on the same lease).
ENGINE=build/gpu/bin/kernelsieve-engine
PY=${PY:-$(command -v python3)}
STEPS=${*:-builtin corpus stat rkb}
export PYTHONUNBUFFERED=1
PACK="$OUT/speed.tgz"
source bench/gpu/steps.sh # ms, step
{
    $CLI --version
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv,noheader
    nproc; free -g | head -2
    grep -m1 "model name" /proc/cpuinfo; cat /proc/loadavg
    # one core's speed, the same few lines on every lease (the draws and filter 6's checks are host-bound)
    "$PY" -c 'import time;t=time.perf_counter();s=sum(i*i for i in range(10**7));print(f"python 1e7 squares: {time.perf_counter()-t:.2f} s")'
} >"$RES/device.txt" 2>&1
# The GPU's clocks, power and throttle reasons once a second through the whole run: a lease slower
# than another in every phase (2026-12-05 lease 3) is the machine or the code?
REASONS=clocks_event_reasons.active # the older drivers' name: clocks_throttle_reasons.active
nvidia-smi --query-gpu=$REASONS --format=csv >/dev/null 2>&1 || REASONS=clocks_throttle_reasons.active
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,$REASONS \
    --format=csv -l 1 >"$RES/gpu-clocks.csv" 2>&1 &
SMI=$!
trap 'kill $SMI 2>/dev/null' EXIT
has() { [[ " $STEPS " == *" $1 "* ]]; }
need_corpus() {
    [[ -d $WORK/kb ]] && return
    "$PY" bench/import/make_corpus.py "$WORK/corpus" --clean >"$RES/corpus-make.log" 2>&1 || { tail "$RES/corpus-make.log"; exit 1; }
    local s; s=$(ms)
    for f in "$WORK"/corpus/level*/; do
        $CLI import-kernelbench "${f%/}" --out "$WORK/kb" --jobs 8 --python "$PY" --trace-device cuda \
            >>"$RES/corpus-import.log" 2>&1
    done
    echo "corpus import: wall $(( $(ms) - s )) ms; $(grep -c '^ok' "$RES/corpus-import.log") ok" | tee -a "$RES/summary.txt"
}
need_level3() {
    [[ -d $WORK/kb3 ]] && return
    "$PY" bench/import/make_corpus.py "$WORK/corpus3" --levels 3 --clean >"$RES/level3-make.log" 2>&1 \
        || { tail "$RES/level3-make.log"; exit 1; }
    "$PY" bench/import/make_corpus.py "$WORK/corpus3" --levels 3 --report >"$RES/level3-report.log" 2>&1
    "$PY" bench/import/make_corpus.py "$WORK/corpus3" --levels 3 --check --device cuda >"$RES/level3-check.log" 2>&1
    step level3-import $CLI import-kernelbench "$WORK/corpus3/level3" --out "$WORK/kb3" --jobs 8 --python "$PY" \
        --trace-device cuda
    echo "level 3 import: $(grep -c '^ok' "$RES/level3-import.log") ok" | tee -a "$RES/summary.txt"
}
if has start; then
    ids=$($CLI list --suite builtin | awk '$1 ~ /^L2-/ {print $1}' | head -25 | paste -sd,)
    starts="1 2 nowarm noearly engine"
    has fused && starts="$starts aten"
    for i in $starts; do # nowarm: KS_WARMUP=0, the first task loads its libraries itself
        step start$i env KS_TRACE_START=1 $([[ $i == nowarm ]] && echo KS_WARMUP=0) \
            $([[ $i == noearly ]] && echo KS_EARLY_CUDA=0) $([[ $i == aten ]] && echo KS_FUSED_STATS=0) \
            "$PY" bench/engine/timeline.py \
            $([[ $i == engine ]] && echo $ENGINE || echo $CLI) filter --suite builtin --device cuda --preset full --seeds 5 \
            --criteria stat --tasks "$ids" --out "$RES/start$i.json" --jsonl
    done
    command -v strace >/dev/null && step start-strace strace -f -tt -e trace=execve,exit_group -o "$RES/start.strace" \
        $CLI filter --suite builtin --device cuda --preset full --seeds 5 --criteria stat --tasks "$ids" \
        --out "$RES/start3.json" -q
fi
if has builtin; then
    step builtin $CLI filter --suite builtin --device cuda --preset full --seeds 5 \
        --out "$RES/builtin.json" --csv "$RES/builtin.csv" -q
    has fused && step builtin-aten env KS_FUSED_STATS=0 $CLI filter --suite builtin --device cuda --preset full \
        --seeds 5 --out "$RES/builtin-aten.json" --csv "$RES/builtin-aten.csv" -q
fi
if has corpus; then
    need_corpus
    step corpus $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --out "$RES/corpus.json" \
        --csv "$RES/corpus.csv" -q
fi
if has levels || has level3; then
    need_level3
    if [[ -z ${L3_SIX_ONLY:-} ]]; then # L3_SIX_ONLY=1: all six criteria only (a short lease)
        step level3-stat $CLI filter --suite "$WORK/kb3" --device cuda --seeds 5 --criteria stat --out "$RES/level3-stat.json" \
            --csv "$RES/level3-stat.csv" -q
        step level3-rngdevice $CLI filter --suite "$WORK/kb3" --device cuda --seeds 5 --criteria stat --rng device \
            --out "$RES/level3-rngdevice.json" --csv "$RES/level3-rngdevice.csv" -q
    fi
    step level3 timeout "${L3_TIMEOUT:-420}" $CLI filter --suite "$WORK/kb3" --device cuda --seeds 5 \
        --out "$RES/level3.json" --csv "$RES/level3.csv"
    if has l3repeat; then # level 3 (all six) $REPEAT more times: walls and filter 5's verdicts run to run
        for i in $(seq 2 $(( ${REPEAT:-2} + 1 ))); do
            step level3-run$i timeout "${L3_TIMEOUT:-420}" $CLI filter --suite "$WORK/kb3" --device cuda --seeds 5 \
                --out "$RES/level3-run$i.json" --csv "$RES/level3-run$i.csv" -q
        done
        # filter 5's efficiency verdicts over the runs, on the eager time and on the CUDA-graph replay
        runs=$(ls "$RES"/level3.json "$RES"/level3-run*.json 2>/dev/null)
        for lim in "" --kernel-limit; do
            python3 bench/engine/filter5_basis.py $lim $runs >"$RES/level3-filter5-basis${lim}.txt" 2>&1 || true
            tail -n 3 "$RES/level3-filter5-basis${lim}.txt" | tee -a "$RES/summary.txt"
        done
    fi
    if has share; then # filter 6's checks are host-bound: several workers on the one GPU
        for n in ${SHARE:-2 4}; do
            step level3-share$n timeout "${L3_TIMEOUT:-420}" $CLI filter --suite "$WORK/kb3" --device cuda --seeds 5 \
                --workers-per-gpu "$n" --out "$RES/level3-share$n.json" --csv "$RES/level3-share$n.csv" -q
        done
    fi
fi
if has nocut; then # same-lease references: filter 6's checks on the whole graph / in the interpreter
    need_level3
    step level3-nocut env KS_CUT_RUNS=0 KS_NODE_RUNS=0 timeout "${L3_TIMEOUT:-200}" $CLI filter --suite "$WORK/kb3" \
        --device cuda --seeds 5 --criteria redundancy --out "$RES/level3-nocut.json" --csv "$RES/level3-nocut.csv" -q
    step level3-cut-code env KS_NODE_RUNS=0 timeout "${L3_TIMEOUT:-200}" $CLI filter --suite "$WORK/kb3" \
        --device cuda --seeds 5 --criteria redundancy --out "$RES/level3-cut-code.json" --csv "$RES/level3-cut-code.csv" -q
    step level3-cut timeout "${L3_TIMEOUT:-200}" $CLI filter --suite "$WORK/kb3" --device cuda \
        --seeds 5 --criteria redundancy --out "$RES/level3-cut.json" --csv "$RES/level3-cut.csv" -q
fi
if has memory; then # what the worker holds from task to task (the end_* fields), and --worker-memory
    need_level3
    step level3-mem $CLI filter --suite "$WORK/kb3" --device cuda --seeds 5 --criteria stat \
        --out "$RES/level3-mem.json" --csv "$RES/level3-mem.csv" -q
    step level3-mem4 $CLI filter --suite "$WORK/kb3" --device cuda --seeds 5 --criteria stat --worker-memory 4 \
        --out "$RES/level3-mem4.json" --csv "$RES/level3-mem4.csv" -q
    step level3-plans64 env TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT=64 $CLI filter --suite "$WORK/kb3" --device cuda \
        --seeds 5 --criteria stat --out "$RES/level3-plans64.json" --csv "$RES/level3-plans64.csv" -q
    for f in mem mem4 plans64; do python3 bench/engine/phases.py "$RES/level3-$f.json" --top 3 >"$RES/level3-$f.phases"; done
fi
if has levels; then
    need_corpus
    for lv in 1 2; do
        step level$lv $CLI filter --suite "$WORK/kb" --tasks "L$lv-*" --device cuda --seeds 5 --out "$RES/level$lv.json" \
            --csv "$RES/level$lv.csv" -q
    done
fi
if has stat; then
    need_corpus
    step builtin-stat $CLI filter --suite builtin --device cuda --preset full --seeds 5 --criteria stat \
        --out "$RES/builtin-stat.json" -q
    step corpus-stat $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat \
        --out "$RES/corpus-stat.json" --csv "$RES/corpus-stat.csv" -q
    step corpus-stat-rngdevice $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat \
        --rng device --out "$RES/corpus-stat-rngdevice.json" --csv "$RES/corpus-stat-rngdevice.csv" -q
    has 1thread && step corpus-stat-1thread $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat \
        --draw-threads 1 --out "$RES/corpus-stat-1thread.json" --csv "$RES/corpus-stat-1thread.csv" -q
fi
if has rkb; then
    need_corpus
    files=$(ls "$WORK"/corpus/level2/*.py | sort -V | head -25)
    ids=$(for f in $files; do n=$(basename "$f"); echo -n "L2-${n%%_*},"; done)
    step rkb-25 timeout 500 "$PY" bench/engine/rkb_formulas.py $files --csv "$RES/rkb-25.csv"
    step ours-25 $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat --tasks "${ids%,}" \
        --out "$RES/ours-25.json" --csv "$RES/ours-25.csv" -q
    # the same again, and without the device warm-up (KS_WARMUP=0): how much each moves on one lease
    step ours-25b $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat --tasks "${ids%,}" \
        --out "$RES/ours-25b.json" --csv "$RES/ours-25b.csv" -q
    # the driver in kernelsieve-engine, which loads LibTorch (kernelsieve-cli's driver does not)
    step ours-25-engine $ENGINE filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat --tasks "${ids%,}" \
        --out "$RES/ours-25-engine.json" --csv "$RES/ours-25-engine.csv" -q
    step ours-25-noearly env KS_EARLY_CUDA=0 $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat \
        --tasks "${ids%,}" --out "$RES/ours-25-noearly.json" --csv "$RES/ours-25-noearly.csv" -q
    step ours-25-nowarm env KS_WARMUP=0 $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat \
        --tasks "${ids%,}" --out "$RES/ours-25-nowarm.json" --csv "$RES/ours-25-nowarm.csv" -q
    if has alternate; then # fused and ATen statistics in turn, $ALT times each (default 3)
        for i in $(seq "${ALT:-3}"); do
            step ours-25-f$i $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat --tasks "${ids%,}" \
                --out "$RES/ours-25-f$i.json" --csv "$RES/ours-25-f$i.csv" -q
            step ours-25-a$i env KS_FUSED_STATS=0 $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat \
                --tasks "${ids%,}" --out "$RES/ours-25-a$i.json" --csv "$RES/ours-25-a$i.csv" -q
        done
    fi
    if has fused; then
        step ours-25c $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat --tasks "${ids%,}" \
            --out "$RES/ours-25c.json" --csv "$RES/ours-25c.csv" -q
        step ours-25-aten env KS_FUSED_STATS=0 $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat \
            --tasks "${ids%,}" --out "$RES/ours-25-aten.json" --csv "$RES/ours-25-aten.csv" -q
    fi
    if has share; then
        for n in ${SHARE:-2 4}; do
            step ours-25-w$n $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --criteria stat \
                --tasks "${ids%,}" --workers-per-gpu "$n" --out "$RES/ours-25-w$n.json" --csv "$RES/ours-25-w$n.csv" -q
        done
    fi
fi
if has nda; then # the same-lease reference: no drawing ahead (each task draws its own seeds)
    has builtin && step builtin-nda $CLI filter --suite builtin --device cuda --preset full --seeds 5 --no-draw-ahead \
        --out "$RES/builtin-nda.json" --csv "$RES/builtin-nda.csv" -q
    has corpus && step corpus-nda $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --no-draw-ahead \
        --out "$RES/corpus-nda.json" --csv "$RES/corpus-nda.csv" -q
fi
if has nofast; then # the same-lease reference: PyTorch's own sampling kernels
    has builtin && step builtin-nofast env KS_FAST_DRAW=0 $CLI filter --suite builtin --device cuda --preset full \
        --seeds 5 --out "$RES/builtin-nofast.json" --csv "$RES/builtin-nofast.csv" -q
    has corpus && step corpus-nofast env KS_FAST_DRAW=0 $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 \
        --out "$RES/corpus-nofast.json" --csv "$RES/corpus-nofast.csv" -q
fi
if has nosplit; then # the same-lease reference: every tensor drawn on one thread
    has builtin && step builtin-nosplit env KS_DRAW_SPLIT=0 $CLI filter --suite builtin --device cuda --preset full \
        --seeds 5 --out "$RES/builtin-nosplit.json" --csv "$RES/builtin-nosplit.csv" -q
    has corpus && step corpus-nosplit env KS_DRAW_SPLIT=0 $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 \
        --out "$RES/corpus-nosplit.json" --csv "$RES/corpus-nosplit.csv" -q
fi
if has ahead; then
    for k in ${AHEAD:-2 3}; do
        has builtin && step builtin-ahead$k $CLI filter --suite builtin --device cuda --preset full --seeds 5 \
            --draw-ahead-tasks "$k" --out "$RES/builtin-ahead$k.json" --csv "$RES/builtin-ahead$k.csv" -q
        has corpus && step corpus-ahead$k $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 \
            --draw-ahead-tasks "$k" --out "$RES/corpus-ahead$k.json" --csv "$RES/corpus-ahead$k.csv" -q
    done
fi
if has hostreg; then
    reg=pinned_use_cuda_host_register:True,pinned_num_register_threads:8
    has builtin && step builtin-hostreg env PYTORCH_CUDA_ALLOC_CONF=$reg $CLI filter --suite builtin --device cuda \
        --preset full --seeds 5 --out "$RES/builtin-hostreg.json" --csv "$RES/builtin-hostreg.csv" -q
    has corpus && step corpus-hostreg env PYTORCH_CUDA_ALLOC_CONF=$reg $CLI filter --suite "$WORK/kb" --device cuda \
        --seeds 5 --out "$RES/corpus-hostreg.json" --csv "$RES/corpus-hostreg.csv" -q
fi
if has devices; then
    step builtin-devices0 $CLI filter --suite builtin --device cuda --preset full --seeds 5 --devices 0 \
        --out "$RES/builtin-devices0.json" --csv "$RES/builtin-devices0.csv" -q
fi
if has repeat; then # the built-in suite $REPEAT more times (default 2): filter 5's verdicts run to run
    for i in $(seq 2 $(( ${REPEAT:-2} + 1 ))); do
        step builtin-run$i $CLI filter --suite builtin --device cuda --preset full --seeds 5 \
            --out "$RES/builtin-run$i.json" --csv "$RES/builtin-run$i.csv" -q
    done
fi
if has draw; then
    step draw build/gpu/bin/ks_draw_bench $(( 1 << 28 ))
    step draw-thp env THP_MEM_ALLOC_ENABLE=1 build/gpu/bin/ks_draw_bench $(( 1 << 28 ))
fi
if has share; then # with builtin and/or corpus
    for n in ${SHARE:-2 4}; do
        has builtin && step builtin-w$n $CLI filter --suite builtin --device cuda --preset full --seeds 5 \
            --workers-per-gpu "$n" --out "$RES/builtin-w$n.json" --csv "$RES/builtin-w$n.csv" -q
        if has corpus; then
            step corpus-w$n $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --workers-per-gpu "$n" \
                --out "$RES/corpus-w$n.json" --csv "$RES/corpus-w$n.csv" -q
        fi
    done
fi
tar -czf "$OUT/speed.tgz" -C "$RES" .
cp "$RES/summary.txt" "$RES/device.txt" "$OUT/" 2>/dev/null || true
