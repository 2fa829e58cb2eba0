#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Engine benchmark on the GPU machine: the whole built-in suite at full shapes with 5 seeds
# (wall time per task, total, peak GPU memory), then 100 seeds on the task with the largest output.
# Results go to $OUT (full5.json/.csv, largest100.json, engine.log).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}
mkdir -p "$OUT"
CLI=build/gpu/bin/kernelsieve-cli
$CLI --version | tee "$OUT/engine.log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv | tee -a "$OUT/engine.log"
$CLI filter --device cuda --preset full --seeds 5 --out "$OUT/full5.json" --csv "$OUT/full5.csv" -q \
    2>&1 | tee -a "$OUT/engine.log" | grep -E "^\[|done in|error" | tail -130
largest=$(python3 - "$OUT/full5.json" <<'PY'
import json, sys, math
r = json.load(open(sys.argv[1]))
ok = [t for t in r["tasks"] if t["status"] == "ok"]
t = max(ok, key=lambda t: math.prod(t["output_shape"]) if t["output_shape"] else 1)
print(t["id"])
PY
)
echo "largest-output task: $largest" | tee -a "$OUT/engine.log"
$CLI filter --device cuda --preset full --seeds 100 --tasks "$largest" --out "$OUT/largest100.json" -q \
    2>&1 | tee -a "$OUT/engine.log" | grep -E "^\[|done in|error"
