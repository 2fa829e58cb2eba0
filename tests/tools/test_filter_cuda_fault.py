# SPDX-License-Identifier: MIT
"""A task that breaks the CUDA context (ctest cli.filter_cuda_fault, label gpu; suite
tests/data/hostile/cuda_fault): F-2's index far past the end is a device-side assert on CUDA, after
which every CUDA call of its process fails. F-2 must be an error saying so (or that LibTorch aborted
its worker), and F-3 (after it) must run in a fresh worker and give what it gives in a run without
F-2. Exit 77 (skipped) without a GPU.
Usage: test_filter_cuda_fault.py CLI SUITE WORK"""
import json
import os
import shutil
import subprocess
import sys

cli, suite, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
COMMON = ["--suite", suite, "--device", "cuda", "--criteria", "stat", "--seeds", "3", "--task-timeout", "300"]


def fail(msg: str) -> None:
    print("FAIL: " + msg)
    sys.exit(1)


def run(name: str, *extra: str):
    p = subprocess.run([cli, "filter", *COMMON, *extra, "--out", os.path.join(work, name + ".json"), "--jsonl"],
                       cwd=work, capture_output=True, text=True, timeout=900)
    if "no CUDA device is usable" in p.stderr:
        print("SKIP: no CUDA device: this GPU test runs on the GPU machine")
        sys.exit(77)
    if p.returncode != 0:
        fail(f"{name}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    with open(os.path.join(work, name + ".json")) as f:
        return {t["id"]: t for t in json.load(f)["tasks"]}, p.stdout + p.stderr


tasks, out = run("fault")
print(out[-3000:])
broke = tasks["F-2"]
err = broke.get("error", "")
# Two ways the fault can end F-2's worker, both recorded, both with the run going on: the worker
# finds the context broken after the task (its check), or LibTorch aborts first (on the H200 the
# assert surfaced in an event made inside a tensor's destructor: std::terminate, SIGABRT).
checked = "the CUDA context is broken after it (" in err
aborted = "the filter worker died while running it (crashed with signal 6" in err
if broke["status"] != "error" or not (checked or aborted):
    fail("F-2: " + broke["status"] + " " + err)
if checked and "device-side assert" not in err and "cudaErrorAssert" not in err:
    fail("F-2's error does not name the assert: " + err)
if checked and "a fresh worker takes the tasks after F-2: the CUDA context is broken after it" not in out:
    fail("no word of the fresh worker")
print("F-2 ended its worker by " + ("the context check" if checked else "an abort in LibTorch"))
alone, _ = run("alone", "--tasks", "F-1,F-3")
for tid in ("F-1", "F-3"):
    t, a = tasks[tid], alone[tid]
    if t["status"] != "ok":
        fail(f"{tid}: {t['status']} {t.get('error')} (a task beside the one that broke the context)")
    if t["metrics"] != a["metrics"] or t["flags"] != a["flags"]:
        fail(f"{tid}: metrics or flags differ from a run without F-2:\n{t['metrics']}\n{a['metrics']}")
print("ok: F-2 broke the context and was recorded; F-1 and F-3 equal a run without it")
