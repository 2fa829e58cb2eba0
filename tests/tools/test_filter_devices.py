# SPDX-License-Identifier: MIT
"""filter --devices (issue 17) on a machine without a GPU: KS_FAKE_DEVICES=N stands for N GPUs and
the real filter workers run on the CPU, each told its CUDA_VISIBLE_DEVICES; KS_TEST_WORKER_LOG
records which device ran each task and when, KS_TEST_TASK_SLEEP makes tasks last. Checks: usage
errors; every task ran exactly once, on the devices given, one task per device at a time, the
devices in parallel; results in task order with the flags, and the CSV byte for byte, of the
one-device run; a crashing worker, a task that breaks the CUDA context, a task past --task-timeout, a killed run resumed and Ctrl-C,
each on one device, lose nothing of the others. Last, validate/bench --shard K/N: the split and
its refusals, which come before the device check.
Usage: test_filter_devices.py CLI DATA WORK"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

cli, data, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
SYN = os.path.join(data, "synthetic")
BAD = os.path.join(data, "bad")
HOSTILE = os.path.join(data, "hostile", "filter_suite")
BASE_ENV = {k: v for k, v in os.environ.items()
            if k not in ("KS_FAKE_DEVICES", "KS_TEST_TASK_SLEEP", "KS_TEST_WORKER_LOG", "KS_TEST_CRASH_ON_TASK",
                         "KS_TEST_AHEAD_LOG", "KS_TEST_GATE_WAIT", "KS_TEST_BREAK_CONTEXT_ON_TASK", "KS_TEST_WORKER_EXIT_DELAY",
                         "KS_TEST_WORKER_EXIT_LOG", "CUDA_VISIBLE_DEVICES")}
# The sandboxed workers may write the ceilings cache folder only: the logs go there.
BASE_ENV["XDG_CACHE_HOME"] = os.path.join(work, "cache")
LOGS = os.path.join(work, "cache", "kernelsieve")
os.makedirs(LOGS)


def fail(msg: str) -> None:
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, rc=0, **env) -> str:
    e = dict(BASE_ENV, **{k: str(v) for k, v in env.items()})
    p = subprocess.run([cli, "filter", *args], cwd=work, env=e, capture_output=True, text=True, timeout=600)
    if p.returncode != rc:
        fail(f"filter {' '.join(args)} (env {env}): exit {p.returncode}, expected {rc}\n{p.stdout}\n{p.stderr}")
    return p.stdout + p.stderr


def read(name: str) -> bytes:
    with open(os.path.join(work, name), "rb") as f:
        return f.read()


def results(name: str) -> dict:
    return json.loads(read(name))


def worker_log(name: str) -> list:
    """(task, device, start, end) per task a worker ran."""
    out = []
    path = os.path.join(LOGS, name)
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            task, dev, start, end = line.split()[:4]
            out.append((task, dev, float(start), float(end)))
    return out


def worker_pids(name: str) -> dict:
    """task -> which worker process ran it (a number each worker draws once)."""
    with open(os.path.join(LOGS, name)) as f:
        return {p[0]: p[4] for p in (line.split() for line in f) if len(p) >= 5}


def check_schedule(log: list, devices: set, tasks: list, what: str) -> None:
    ran = [t for t, _, _, _ in log]
    if sorted(ran) != sorted(tasks):
        fail(f"{what}: the workers ran {sorted(ran)}, expected each of {sorted(tasks)} once")
    used = {d for _, d, _, _ in log}
    if not used <= devices:
        fail(f"{what}: tasks ran on {used}, not only on {devices}")
    if len(tasks) >= 2 * len(devices) and used != devices:
        fail(f"{what}: only {used} of {devices} got tasks")
    parallel = False
    for i, (ta, da, sa, ea) in enumerate(log):
        for tb, db, sb, eb in log[i + 1:]:
            overlap = sa < eb and sb < ea
            if overlap and da == db:
                fail(f"{what}: {ta} and {tb} ran at once on device {da}")
            parallel = parallel or (overlap and da != db)
    if len(devices) > 1 and not parallel:
        fail(f"{what}: no two devices ever ran at once")


def same_run(one: str, many: str, what: str, devices: int) -> dict:
    """The multi-device results equal the one-device run's: same tasks in the same order, same
    flags, statuses and errors; the CSV byte for byte."""
    a, b = results(one + ".json"), results(many + ".json")
    ids_a, ids_b = [t["id"] for t in a["tasks"]], [t["id"] for t in b["tasks"]]
    if ids_a != ids_b:
        fail(f"{what}: task order {ids_b}, the one-device run's is {ids_a}")
    for ta, tb in zip(a["tasks"], b["tasks"]):
        for key in ("flags", "status", "error", "metrics"):
            if ta.get(key) != tb.get(key):
                fail(f"{what}: {ta['id']}: {key} differs: {tb.get(key)} vs one device's {ta.get(key)}")
    if read(one + ".csv") != read(many + ".csv"):
        fail(f"{what}: {many}.csv differs from {one}.csv")
    if len(b["run"].get("gpus", [])) != devices:
        fail(f"{what}: run.gpus is {b['run'].get('gpus')}, expected {devices} entries")
    if "gpus" in a["run"] or any("gpu" in t for t in a["tasks"]):
        fail(f"{what}: the one-device run's file names GPUs")
    return b


COMMON = ["--device", "cpu", "--criteria", "stat,redundancy", "--seeds", "2", "-q"]

# --- Usage. ------------------------------------------------------------------------------------
out = run(["--suite", SYN, *COMMON, "--devices", "0", "--no-out"], rc=2)
if "does not go with --device cpu" not in out:
    fail("--devices with --device cpu: " + out)
out = run(["--suite", SYN, *COMMON, "--devices", "2", "--no-out"], rc=2, KS_FAKE_DEVICES=2)
if "device 2 does not exist (2 visible: 0-1)" not in out:
    fail("--devices 2 of 2: " + out)
out = run(["--suite", SYN, *COMMON, "--devices", "0,0", "--no-out"], rc=2, KS_FAKE_DEVICES=2)
if "given twice" not in out:
    fail("--devices 0,0: " + out)
out = run(["--suite", SYN, *COMMON, "--devices", "one", "--no-out"], rc=2, KS_FAKE_DEVICES=2)
if "expected 'all' or device ordinals" not in out:
    fail("--devices one: " + out)
out = run(["--suite", SYN, *COMMON, "--devices", "all", "--no-out"], rc=4, KS_FAKE_DEVICES=0)
if "no CUDA device is visible" not in out:
    fail("--devices all without devices: " + out)

# --- Spread over three devices, and over two of them: the one-device run's results. ----------
for suite, name in ((SYN, "syn"), (BAD, "bad")):
    run(["--suite", suite, *COMMON, "--out", f"{name}-one.json", "--csv", f"{name}-one.csv"])
    out = run(["--suite", suite, *COMMON, "--devices", "all", "--out", f"{name}-all.json", "--csv", f"{name}-all.csv"],
              KS_FAKE_DEVICES=3, KS_TEST_TASK_SLEEP=0.3, KS_TEST_WORKER_LOG=os.path.join(LOGS, f"{name}-all.log"))
    if "devices: 3 GPU(s) (0, 1, 2)" not in out:
        fail("the run says which devices: " + out)
    b = same_run(f"{name}-one", f"{name}-all", f"{name} on 3 devices", 3)
    log = worker_log(f"{name}-all.log")
    ran = [t for t, _, _, _ in log]
    check_schedule(log, {"0", "1", "2"}, ran, f"{name} on 3 devices")
    # every task of the file that is not a load failure ran once; one out of memory twice (the
    # retry alone in a fresh worker), as on one device
    expected = []
    for t in b["tasks"]:
        if "gpu" in t:
            expected += [t["id"]] * (2 if "retried alone in a fresh worker" in t.get("error", "") else 1)
    if sorted(expected) != sorted(ran):
        fail(f"{name}: the workers ran {sorted(ran)}, expected {sorted(expected)}")
    if name == "bad" and "that ran out of memory, alone in a fresh worker" not in out:
        fail("bad: the out-of-memory task was not retried: " + out)
    where = {t: d for t, d, _, _ in log}
    for t in b["tasks"]:
        if "gpu" in t and t["gpu"] != where[t["id"]]:
            fail(f"{name}: {t['id']} says gpu {t['gpu']}, its worker ran on {where[t['id']]}")

run(["--suite", SYN, *COMMON, "--devices", "2,0", "--out", "two.json", "--csv", "two.csv"],
    KS_FAKE_DEVICES=3, KS_TEST_TASK_SLEEP=0.2, KS_TEST_WORKER_LOG=os.path.join(LOGS, "two.log"),
    KS_TEST_AHEAD_LOG=os.path.join(LOGS, "two-ahead.log"))
same_run("syn-one", "two", "syn on devices 2,0", 2)
log = worker_log("two.log")
check_schedule(log, {"0", "2"}, [t for t, _, _, _ in log], "syn on devices 2,0")
# Each worker knows its next tasks while it runs one (--draw-ahead-tasks, 2 by default; their
# seeds are drawn meanwhile): the tasks it names are the ones it runs next, in order; a worker's
# last names none. (A task may name fewer when the driver was slower than the worker's wait for
# them; most must name two.)
with open(os.path.join(LOGS, "two-ahead.log")) as f:
    ahead = [line.split() for line in f if line.strip()]
for dev in ("0", "2"):
    seq = [(t, [] if n == "-" else n.split(",")) for t, n, d in ahead if d == dev]
    if len(seq) < 4:
        fail(f"device {dev} ran {len(seq)} tasks: the lookahead is not exercised")
    ran = [t for t, _ in seq]
    both = 0
    for i, (t, names) in enumerate(seq):
        if len(names) > 2:
            fail(f"device {dev}: while running {t} it was told of {len(names)} tasks ahead: {names}")
        if names != ran[i + 1:i + 1 + len(names)]:
            fail(f"device {dev}: while running {t} it was told {names} come next, but it ran {ran[i + 1:i + 3]}")
        both += len(names) == 2
    if both * 2 < len(seq) - 2:
        fail(f"device {dev}: only {both} of {len(seq) - 2} tasks knew the two after them: {seq}")
    if seq[-1][1]:
        fail(f"device {dev}: its last task {seq[-1][0]} was told {seq[-1][1]} come next")

# --- --worker-memory: a worker that holds more than that at a task's end makes way for a fresh one,
# on one device and on several; the results do not change. The default keeps one worker here.
run(["--suite", SYN, *COMMON, "--no-out"], KS_TEST_WORKER_LOG=os.path.join(LOGS, "mem-default.log"))
pids = worker_pids("mem-default.log")
if len(pids) < 4 or len(set(pids.values())) != 1:
    fail(f"default --worker-memory: the tasks ran in workers {pids}, expected one")
out = run(["--suite", SYN, *COMMON, "--worker-memory", "0.001", "--jsonl", "--out", "mem-one.json", "--csv",
           "mem-one.csv"], KS_TEST_WORKER_LOG=os.path.join(LOGS, "mem-one.log"))
same_run("syn-one", "mem-one", "--worker-memory 0.001 on one device", 0)
pids = worker_pids("mem-one.log")
if sorted(pids) != sorted(worker_pids("mem-default.log")) or len(set(pids.values())) != len(pids):
    fail(f"--worker-memory 0.001: the tasks ran in workers {pids}, expected each in its own")
said = out.count("a fresh worker takes the tasks after")
events = out.count('"event":"worker_restart"')
if said != len(pids) - 1 or events != len(pids) - 1 or "over --worker-memory 0.001 GiB" not in out:
    fail(f"--worker-memory 0.001: {said} restarts said, {events} events, for {len(pids)} tasks:\n{out}")
# Each task in a fresh worker: a task of a second long, so that the two devices' tasks overlap
# however long the workers take to start (0.1 s did not once, on a loaded CI machine).
run(["--suite", SYN, *COMMON, "--devices", "all", "--worker-memory", "0.001", "--out", "mem-all.json", "--csv",
     "mem-all.csv"], KS_FAKE_DEVICES=2, KS_TEST_TASK_SLEEP=1.0, KS_TEST_WORKER_LOG=os.path.join(LOGS, "mem-all.log"))
same_run("syn-one", "mem-all", "--worker-memory 0.001 on 2 devices", 2)
log = worker_log("mem-all.log")
check_schedule(log, {"0", "1"}, [t for t, _, _, _ in log], "--worker-memory 0.001 on 2 devices")
pids = worker_pids("mem-all.log")
if len(set(pids.values())) != len(pids):
    fail(f"--worker-memory 0.001 on 2 devices: the tasks ran in workers {pids}, expected each in its own")

# --- A worker that crashes: its task is an error, as on one device; nothing else is lost. ------
run(["--suite", SYN, *COMMON, "--out", "crash-one.json", "--csv", "crash-one.csv"], KS_TEST_CRASH_ON_TASK="T-normal")
run(["--suite", SYN, *COMMON, "--devices", "all", "--out", "crash-all.json", "--csv", "crash-all.csv"],
    KS_FAKE_DEVICES=2, KS_TEST_TASK_SLEEP=0.2, KS_TEST_CRASH_ON_TASK="T-normal",
    KS_TEST_WORKER_LOG=os.path.join(LOGS, "crash.log"))
b = same_run("crash-one", "crash-all", "a crash on 2 devices", 2)
clean = {t["id"]: t["status"] for t in results("syn-one.json")["tasks"]}
for t in b["tasks"]:
    if t["id"] == "T-normal":
        if "the filter worker died while running it" not in t.get("error", ""):
            fail("the crashed task's error: " + t.get("error", ""))
    elif t["status"] != clean[t["id"]]:
        fail(f"a crash on 2 devices: {t['id']} has status {t['status']} ({t.get('error')})")
log = worker_log("crash.log")
check_schedule(log, {"0", "1"}, [t for t, _, _, _ in log], "a crash on 2 devices")

# --- A task that breaks the CUDA context (KS_TEST_BREAK_CONTEXT_ON_TASK stands for a device-side
# assert): it is an error, what it computed is dropped, and the tasks after it run in a fresh
# worker rather than failing one by one; on one device (the worker's task list) and on two. ------
for name, extra, env in (("ctx-one", [], {}),
                         ("ctx-all", ["--devices", "all"], {"KS_FAKE_DEVICES": 2, "KS_TEST_TASK_SLEEP": 0.2})):
    out = run(["--suite", SYN, *COMMON, *extra, "--out", name + ".json", "--csv", name + ".csv", "--jsonl"],
              KS_TEST_BREAK_CONTEXT_ON_TASK="T-normal", KS_TEST_WORKER_LOG=os.path.join(LOGS, name + ".log"), **env)
    if "a fresh worker takes the tasks after T-normal: the CUDA context is broken after it" not in out:
        fail(f"{name}: no word of the fresh worker\n{out}")
    restarts = [json.loads(line) for line in out.splitlines() if line.startswith('{"event":"worker_restart"')]
    if [(r["after"], r.get("reason")) for r in restarts] != [("T-normal", "cuda_context")]:
        fail(f"{name}: worker_restart events {restarts}")
    for t in results(name + ".json")["tasks"]:
        if t["id"] == "T-normal":
            err = t.get("error", "")
            if t["status"] != "error" or "the CUDA context is broken after it (cudaErrorAssert" not in err \
                    or "the tasks after it run in a fresh worker" not in err or "not kept" not in err:
                fail(f"{name}: the task that broke the context: {t['status']} {err}")
            ran = [k for k, m in t["metrics"].items() if m.get("run")]
            if t["seeds"] != 0 or ran or any(t["flags"].values()):
                fail(f"{name}: the task that broke the context kept results: seeds {t['seeds']}, metrics {ran}, "
                     f"flags {t['flags']}")
        elif t["status"] != clean[t["id"]]:
            fail(f"{name}: {t['id']} has status {t['status']} ({t.get('error')}), {clean[t['id']]} without the fault")
    with open(os.path.join(LOGS, name + ".log")) as f:
        rows = [line.split() for line in f]
    broke = next(r for r in rows if r[0] == "T-normal")
    later = [r[0] for r in rows if r[4] == broke[4] and float(r[2]) >= float(broke[3])]
    if later:
        fail(f"{name}: the worker whose context broke ran {later} after it")
    if len({r[4] for r in rows}) < 2:
        fail(f"{name}: one worker ran every task: {rows}")
same_run("ctx-one", "ctx-all", "a broken CUDA context on 2 devices", 2)

# --- A task past --task-timeout on one device; a task that prints protocol lines. -------------
HOST = ["--suite", HOSTILE, "--device", "cpu", "--criteria", "stat", "--seeds", "2", "--task-timeout", "3", "-q"]
run([*HOST, "--out", "hostile-one.json", "--csv", "hostile-one.csv"])
run([*HOST, "--devices", "all", "--out", "hostile-all.json", "--csv", "hostile-all.csv"], KS_FAKE_DEVICES=2)
h = same_run("hostile-one", "hostile-all", "a task past --task-timeout on 2 devices", 2)
status = {t["id"]: (t["status"], t.get("error", "")) for t in h["tasks"]}
if sorted(status) != ["H-first", "H-forge", "H-hang", "H-last"]:
    fail(f"hostile: tasks {list(status)}")
if status["H-hang"][0] != "error" or "timed out" not in status["H-hang"][1]:
    fail(f"hostile: H-hang {status['H-hang']}")
for t in ("H-first", "H-forge", "H-last"):
    if status[t][0] != "ok":
        fail(f"hostile: {t} {status[t]}")

# --- kill -9 of the driver, then --resume on the devices: the one-device run's results. ------
env = dict(BASE_ENV, KS_FAKE_DEVICES="2", KS_TEST_TASK_SLEEP="1", KS_TEST_WORKER_LOG=os.path.join(LOGS, "killed.log"))
p = subprocess.Popen([cli, "filter", "--suite", SYN, *COMMON, "--devices", "all", "--out", "resumed.json", "--csv",
                      "resumed.csv"], cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
journal = os.path.join(work, "resumed.json.journal")
deadline = time.monotonic() + 120
while True:
    n = 0
    if os.path.exists(journal):
        with open(journal) as f:
            n = max(0, sum(1 for line in f if line.endswith("\n")) - 2)
    if n >= 3:
        break
    if p.poll() is not None or time.monotonic() > deadline:
        fail("the run to be killed ended or stalled")
    time.sleep(0.1)
p.send_signal(signal.SIGKILL)
p.wait()
with open(journal) as f:
    kept = max(0, sum(1 for line in f if line.endswith("\n")) - 2)
run(["--suite", SYN, *COMMON, "--devices", "all", "--out", "resumed.json", "--csv", "resumed.csv"], rc=5,
    KS_FAKE_DEVICES=2)  # an unfinished journal: refused without --resume
out = run(["--suite", SYN, *COMMON, "--devices", "all", "--out", "resumed.json", "--csv", "resumed.csv", "--resume"],
          KS_FAKE_DEVICES=2, KS_TEST_WORKER_LOG=os.path.join(LOGS, "resume2.log"))
same_run("syn-one", "resumed", "killed and resumed on 2 devices", 2)
rerun = [t for t, _, _, _ in worker_log("resume2.log")]
total = len(results("syn-one.json")["tasks"])
if len(rerun) != total - kept:
    fail(f"--resume ran {len(rerun)} tasks; {kept} of {total} were in the journal")
if os.path.exists(journal):
    fail("the journal is left after the resumed run finished")

# --- Ctrl-C: each worker stops after its current seed; what finished is kept, exit 130. -------
p = subprocess.Popen([cli, "filter", "--suite", SYN, *COMMON, "--devices", "all", "--out", "cancel.json"], cwd=work,
                     env=dict(BASE_ENV, KS_FAKE_DEVICES="2", KS_TEST_TASK_SLEEP="1"), stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE, text=True)
journal = os.path.join(work, "cancel.json.journal")
deadline = time.monotonic() + 120
while not (os.path.exists(journal) and sum(1 for _ in open(journal)) >= 4):
    if p.poll() is not None or time.monotonic() > deadline:
        fail("the run to be cancelled ended or stalled")
    time.sleep(0.1)
p.send_signal(signal.SIGINT)
try:
    err = p.communicate(timeout=60)[1]
except subprocess.TimeoutExpired:
    p.kill()
    fail("Ctrl-C did not end the run within 60 s")
if p.returncode != 130:
    fail(f"Ctrl-C: exit {p.returncode}\n{err}")
c = results("cancel.json")
if not c["run"]["cancelled"] or not (2 <= len(c["tasks"]) < 14):
    fail(f"Ctrl-C: cancelled={c['run']['cancelled']}, {len(c['tasks'])} tasks kept")
one = {t["id"]: t for t in results("syn-one.json")["tasks"]}
for t in c["tasks"]:
    if t["flags"] != one[t["id"]]["flags"] or t["status"] != "ok":
        fail(f"Ctrl-C: kept task {t['id']} differs from the one-device run")
# --- --workers-per-gpu: several workers share one device. ----------------------------------
out = run(["--suite", SYN, *COMMON, "--workers-per-gpu", "2", "--no-out"], rc=2)
if "--workers-per-gpu spreads the tasks over GPUs; it does not go with --device cpu" not in out:
    fail("--workers-per-gpu with --device cpu: " + out)
# Three workers on one device: tasks overlap on it (at most three at once), the results and the
# CSV are the one-worker run's byte for byte.
GATE_TMP = os.path.join(work, "tmp")
os.makedirs(GATE_TMP)
out = run(["--suite", SYN, *COMMON, "--devices", "all", "--workers-per-gpu", "3", "--out", "share.json", "--csv",
           "share.csv"], KS_FAKE_DEVICES=1, KS_TEST_TASK_SLEEP=0.3, KS_TEST_WORKER_LOG=os.path.join(LOGS, "share.log"),
          TMPDIR=GATE_TMP)
if "devices: 1 GPU(s) (0), 3 filter workers on each" not in out:
    fail("--workers-per-gpu 3: the run does not say so: " + out)
same_run("syn-one", "share", "3 workers on one device", 1)
log = worker_log("share.log")
if sorted(t for t, _, _, _ in log) != sorted(t["id"] for t in results("syn-one.json")["tasks"] if "error" not in t
                                                 or "retried" not in t.get("error", "")):
    fail(f"3 workers on one device ran {sorted(t for t, _, _, _ in log)}")
most = max(sum(1 for _, _, s2, e2 in log if s2 <= s < e2) for _, _, s, _ in log)
if not 2 <= most <= 3:
    fail(f"3 workers on one device: at most {most} tasks ran at once")
if any(d != "0" for _, d, _, _ in log):
    fail("3 workers on one device: a task ran elsewhere")
if [p for p in os.listdir(GATE_TMP) if p.startswith("kernelsieve-gate-")]:
    fail(f"the GPU locks' folder was left behind: {os.listdir(GATE_TMP)}")
# --task-timeout leaves out the time a task waits for another worker's timing (it may last as
# long as that worker's task): 3 s of waiting under a 2 s timeout pass, 3 s of work do not.
TO = ["--suite", SYN, *COMMON, "--tasks", "T-normal", "--task-timeout", "2", "--devices", "all", "--no-out", "--jsonl"]
out = run(TO, KS_FAKE_DEVICES=1, KS_TEST_GATE_WAIT=3)
if "waiting for the GPU" not in out or "timed out" in out or '"status":"ok"' not in out.replace(" ", ""):
    fail("a 3 s wait for the GPU under --task-timeout 2: " + out[-2000:])
out = run(TO, KS_FAKE_DEVICES=1, KS_TEST_TASK_SLEEP=3)
if "timed out" not in out:
    fail("3 s of work under --task-timeout 2 did not time out: " + out[-2000:])
# With filter 5: each timing says it had the device to itself (the gate's exclusive hold); the
# statistical flags are the one-worker run's.
ALL = ["--device", "cpu", "--criteria", "all", "--seeds", "2", "-q", "--tasks", "T-normal,T-const-one,T-scalar"]
run(["--suite", SYN, *ALL, "--out", "f5-one.json"])
run(["--suite", SYN, *ALL, "--workers-per-gpu", "2", "--out", "f5-share.json"], KS_FAKE_DEVICES=1)
one5 = {t["id"]: t for t in results("f5-one.json")["tasks"]}
share5 = results("f5-share.json")["tasks"]
if sorted(one5) != sorted(t["id"] for t in share5):
    fail("filter 5 with 2 workers: other tasks")
for t in share5:
    notes = " ".join((t.get("inefficiency") or {}).get("notes", []))
    if "timed with the GPU to itself" not in notes or "2 workers share it" not in notes:
        fail(f"filter 5 with 2 workers: {t['id']} does not say it timed alone: {t.get('inefficiency')}")
    if "timed with the GPU to itself" in " ".join((one5[t["id"]].get("inefficiency") or {}).get("notes", [])):
        fail(f"one worker: {t['id']} says it shared the device")
    if {k: v for k, v in t["flags"].items() if "inefficien" not in k} != \
            {k: v for k, v in one5[t["id"]]["flags"].items() if "inefficien" not in k}:
        fail(f"filter 5 with 2 workers: {t['id']} flags {t['flags']} vs {one5[t['id']]['flags']}")

# --- A worker's exit after its last result is not waited for (a CUDA worker's teardown took
# 0.3-0.5 s on the H200), neither by the driver nor, through our stderr, by whoever reads it; a
# new worker (the out-of-memory retry, alone on the device) starts only once the last has ended.
# With --devices each device's thread waits for its worker (its end would kill the sandbox).
SLOW = 30
t0 = time.monotonic()
run(["--suite", SYN, *COMMON, "--out", "slow-exit.json", "--csv", "slow-exit.csv"], KS_TEST_WORKER_EXIT_DELAY=SLOW)
took = time.monotonic() - t0
if took > SLOW / 2:
    fail(f"slow worker exit: the run took {took:.1f} s: it waited for the worker's {SLOW} s exit")
if read("slow-exit.csv") != read("syn-one.csv"):
    fail("slow worker exit: the CSV differs from the run's without it")
exits = os.path.join(LOGS, "exits.log")
out = run(["--suite", BAD, *COMMON, "--out", "oom-retry.json", "--csv", "oom-retry.csv"],
          KS_TEST_WORKER_EXIT_DELAY=2, KS_TEST_WORKER_EXIT_LOG=exits,
          KS_TEST_WORKER_LOG=os.path.join(LOGS, "oom-retry.log"))
if "that ran out of memory, alone in a fresh worker" not in out:
    fail("slow worker exit: the out-of-memory task was not retried: " + out)
if read("oom-retry.csv") != read("bad-one.csv"):
    fail("slow worker exit: the bad suite's CSV differs from the run's without it")
if not os.path.exists(exits):
    fail("slow worker exit: no worker lived to the end of its exit: none was waited for before the retry")
with open(exits) as f:
    first_exit = min(float(line.split()[1]) for line in f if line.startswith("exit "))
log = worker_log("oom-retry.log")
retry_start = max(s for _, _, s, _ in log)  # the retried task is the last one a worker starts
if len(log) < 3 or retry_start < first_exit:
    fail(f"slow worker exit: the retry's worker started its task {first_exit - retry_start:.2f} s before "
         f"the first worker had ended ({len(log)} tasks logged)")
run(["--suite", SYN, *COMMON, "--devices", "all", "--out", "slow-exit-d.json", "--csv", "slow-exit-d.csv"],
    KS_FAKE_DEVICES=2, KS_TEST_WORKER_EXIT_DELAY=1)
same_run("syn-one", "slow-exit-d", "slow worker exit on 2 devices", 2)

# --- validate / bench --shard: the split is made (and refused) before the device is needed. ---
def cli_rc(args):
    p = subprocess.run([cli, *args], cwd=work, env=BASE_ENV, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


for cmd in ("validate", "bench"):
    rc, out = cli_rc([cmd, "--shard", "3/2"])
    if rc != 2 or "expected K/N with 1 <= K <= N" not in out:
        fail(f"{cmd} --shard 3/2: exit {rc}\n{out}")
    rc, out = cli_rc([cmd, "--shard", "2/2", "--tasks", "L1-12"])
    if rc != 3 or "shard 2/2 has no task (1 selected)" not in out:
        fail(f"{cmd} --shard 2/2 of one task: exit {rc}\n{out}")
    # the built-in tasks with kernels: L1-12, L1-23, L1-36, L2-13, L2-13r; a --dim none has stops
    # the run right after the split, on a GPU machine too
    for k, n in (("1/2", "3 of 5"), ("2/2", "2 of 5"), ("5/5", "1 of 5")):
        rc, out = cli_rc([cmd, "--shard", k, "--dim", "no_such_dim=1"])
        if rc != 2 or f"shard {k}: {n} tasks" not in out or "no_such_dim" not in out:
            fail(f"{cmd} --shard {k}: exit {rc}\n{out}")
print("ok: filter --devices, --workers-per-gpu, validate/bench --shard")
