#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 17 on the one-GPU machine: --devices 0 and --devices all (one GPU) give what a run
# without --devices gives (filter: the CSV byte for byte; bench/validate: the same tasks and
# verdicts, each with its gpu, the ceilings measured on the GPU), a device that does not exist is
# refused, and validate --shard splits the tasks. Usage: bench/gpu/run_devices.sh (expects
# build/gpu: bench/gpu/build.sh kernelsieve-cli kernelsieve-sandbox). Results in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}
mkdir -p "$OUT"
CLI=$PWD/build/gpu/bin/kernelsieve-cli
W=$(mktemp -d)
cd "$W"
fails=0
check() { if "$@"; then echo "PASS: $*"; else echo "FAIL: $*"; fails=$((fails + 1)); fi; }
nvidia-smi -L
F=(filter --device cuda --criteria stat,redundancy --seeds 5 -q)
$CLI "${F[@]}" --out one.json --csv one.csv 2>one.log; echo "filter: exit $?"
$CLI "${F[@]}" --devices 0 --out d0.json --csv d0.csv 2>d0.log; echo "filter --devices 0: exit $?"
$CLI "${F[@]}" --devices all --out dall.json --csv dall.csv 2>dall.log; echo "filter --devices all: exit $?"
check cmp one.csv d0.csv
check cmp one.csv dall.csv
python3 - <<'PY'
import json
a, b = json.load(open("one.json")), json.load(open("d0.json"))
assert [t["id"] for t in a["tasks"]] == [t["id"] for t in b["tasks"]], "task order"
assert all(t["flags"] == u["flags"] for t, u in zip(a["tasks"], b["tasks"])), "flags"
assert all(u.get("gpu") == "0" for u in b["tasks"] if u["status"] == "ok"), "gpu per task"
print("filter: %d tasks, same order and flags; run.gpus %s" % (len(a["tasks"]), b["run"].get("gpus")))
PY
check test $? = 0
$CLI "${F[@]}" --devices 1 --no-out 2>d1.log; rc=$?
check test $rc = 2
grep -h "does not exist" d1.log
B=(--tasks "L1-12,L1-23" --seeds 10 --no-edge-cases)
$CLI bench "${B[@]}" --baselines eager --runs 200 --warmup 10 --out bench-one.json >bench-one.txt 2>bench-one.log
echo "bench: exit $?"
$CLI bench "${B[@]}" --baselines eager --runs 200 --warmup 10 --devices 0 --out bench-d0.json >bench-d0.txt 2>bench-d0.log
echo "bench --devices 0: exit $?"
$CLI validate --seeds 5 --devices all --shard 2/2 --out val-s2.json >val-s2.txt 2>val-s2.log
echo "validate --devices all --shard 2/2: exit $?"
python3 - <<'PY'
import json
a, b = json.load(open("bench-one.json")), json.load(open("bench-d0.json"))
assert [t["task_id"] for t in a["tasks"]] == [t["task_id"] for t in b["tasks"]], "bench task order"
for t, u in zip(a["tasks"], b["tasks"]):
    assert [v["name"] for v in t["variants"]] == [v["name"] for v in u["variants"]]
    assert [v["verdict"] for v in t["variants"]] == [v["verdict"] for v in u["variants"]], t["task_id"]
    assert u["gpu"] == "0" and "gpu" not in t
    for v, w in zip(t["variants"], u["variants"]):
        print("%s %-40s %-8s speedup %.2fx (one GPU) %.2fx (--devices 0)" % (t["task_id"], v["name"], w["verdict"], v["speedup"] or 0, w["speedup"] or 0))
g = b["run"]["gpus"]
assert len(g) == 1 and g[0]["copy_bandwidth_gbs"] > 0, g
print("bench: run.gpus", g)
s = json.load(open("val-s2.json"))
print("validate --shard 2/2: shard", s["run"].get("shard"), "tasks", [t["task_id"] for t in s["tasks"]])
assert s["run"]["shard"] == {"index": 2, "count": 2}
PY
check test $? = 0
tail -3 bench-d0.log val-s2.log
cat val-s2.txt | head -20
tar czf "$OUT/devices.tgz" ./*.csv ./*.log ./*.txt ./*.json # $OUT takes 8 files at most
echo "failures: $fails"
exit $fails
