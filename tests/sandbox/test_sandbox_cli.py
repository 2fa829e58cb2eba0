# SPDX-License-Identifier: MIT
"""kernelsieve-cli runs task files in the sandbox (issue 15): a task file that writes outside the
output suite, starts a daemon in its own session and connects to a port on the host imports, and
leaves nothing behind; with --no-sandbox the same file does escape (so the checks can fail); a
missing sandbox is an error that names --no-sandbox; the filter's workers run sandboxed.

Usage: test_sandbox_cli.py CLI SANDBOX_HELPER PYTHON_WITH_TORCH DATA WORK. Exit 77 (skipped) when
the sandbox or torch is not available here."""
import os
import shutil
import socket
import subprocess
import sys
import threading
import time

cli, helper, torch_python, data, work = sys.argv[1:6]


def fail(msg: str) -> None:
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, env=None, expect=0):
    p = subprocess.run([cli] + args, capture_output=True, text=True, env=env, cwd=work, timeout=600)
    out = p.stdout + p.stderr
    if p.returncode != expect:
        fail(f"kernelsieve-cli {' '.join(args)}: exit {p.returncode}, expected {expect}\n{out}")
    return out


def daemons() -> list:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"daemon-was-here" in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


check = subprocess.run([helper, "--host-tmp", "--check"], capture_output=True, text=True)
if check.returncode != 0:
    print("SKIPPED: " + (check.stdout + check.stderr).strip())
    sys.exit(77)
if subprocess.run([torch_python, "-c", "import torch"], capture_output=True).returncode != 0:
    print(f"SKIPPED: {torch_python} has no torch")
    sys.exit(77)

shutil.rmtree(work, ignore_errors=True)
outside = os.path.join(work, "outside")
src = os.path.join(work, "src", "level1")
os.makedirs(outside)
shutil.copytree(os.path.join(data, "hostile", "import_escape", "level1"), src)

# A listener on the host's loopback: the task file must not reach it.
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(5)
server.settimeout(0.2)
connections = []
stop = threading.Event()


def accept() -> None:
    while not stop.is_set():
        try:
            c, _ = server.accept()
            connections.append(c)
        except socket.timeout:
            pass


threading.Thread(target=accept, daemon=True).start()
env = dict(os.environ, KS_ESCAPE_DIR=outside, KS_ESCAPE_PORT=str(server.getsockname()[1]))
env.pop("KS_SANDBOX", None)

# Sandboxed (the default): it imports, and nothing of it is left.
out = run(["import-kernelbench", src, "--out", os.path.join(work, "suite"), "--python", torch_python,
           "--trace-device", "cpu"], env)
if "1 of 1 files imported" not in out:
    fail("the hostile file did not import:\n" + out)
time.sleep(1)
for name in ("escaped-file", "network-was-reachable", "daemon-was-here"):
    if os.path.exists(os.path.join(outside, name)):
        fail(f"sandboxed import: {name} exists in {outside}")
if os.path.exists(os.path.join(src, "escaped-file")):
    fail("sandboxed import: the task file wrote into its own folder")
if connections:
    fail("sandboxed import: the task file connected to a port on the host")
if daemons():
    fail(f"sandboxed import: the task file's daemon outlived the import (pids {daemons()})")

# The filter's workers run sandboxed too, and the imported task filters.
out = run(["filter", "--suite", os.path.join(work, "suite"), "--device", "cpu", "--criteria", "stat", "--seeds", "2",
           "--out", "r.json", "-q"], env)
if "1 tasks from" not in out or "ERROR" in out:
    fail("filter over the imported suite:\n" + out)

# No sandbox here (the helper missing): an error naming --no-sandbox, and nothing runs.
missing = dict(env, KS_SANDBOX_HELPER=os.path.join(work, "no-such-helper"))
out = run(["import-kernelbench", src, "--out", os.path.join(work, "suite2"), "--python", torch_python], missing, 2)
if "the sandbox is not available here" not in out or "--no-sandbox" not in out:
    fail("a missing sandbox was not refused clearly:\n" + out)
if os.path.exists(os.path.join(work, "suite2")):
    fail("the import ran although the sandbox was missing")
out = run(["filter", "--suite", os.path.join(work, "suite"), "--device", "cpu", "--no-out"], missing, 2)
if "the sandbox is not available here" not in out:
    fail("filter without a sandbox was not refused:\n" + out)
# The built-in suite is KernelSieve's own code: it runs without a sandbox, silently.
run(["filter", "--device", "cpu", "--tasks", "L1-19*", "--criteria", "stat", "--no-out", "-q"], missing)
run(["filter", "--device", "cpu", "--tasks", "L1-19*", "--no-out", "-q"], dict(env, KS_SANDBOX="bogus"), 2)

# --no-sandbox: the same file escapes, as it would without KernelSieve's protection; the test's
# checks above are therefore able to fail.
out = run(["import-kernelbench", src, "--out", os.path.join(work, "suite3"), "--python", torch_python,
           "--trace-device", "cpu", "--no-sandbox"], env)
if "WARNING: running WITHOUT the sandbox" not in out:
    fail("--no-sandbox did not warn:\n" + out)
time.sleep(0.5)
escaped = os.path.exists(os.path.join(outside, "escaped-file"))
left = daemons()
for pid in left:  # the daemon leads its own session: its group holds its sleep too
    try:
        os.killpg(pid, 9)
    except OSError:
        pass
stop.set()
if not escaped or not connections or not left:
    fail(f"--no-sandbox: the fixture did not escape (file {escaped}, connections {len(connections)}, daemons {left}); "
         "it no longer tests the sandbox")
print("ok: sandboxed, the hostile task file left no file, process or connection; unsandboxed it left all three")
