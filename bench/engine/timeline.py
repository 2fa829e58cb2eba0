#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Runs a command and prints each line of its stdout (O) and stderr (E) with the seconds since the
# command was started: where a short run's wall goes (start-up, the first task, the end).
# Usage: bench/engine/timeline.py COMMAND [ARGS...]
import subprocess
import sys
import threading
import time


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__ or "usage: timeline.py COMMAND [ARGS...]", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    lock = threading.Lock()

    def pump(stream, tag):
        for line in stream:
            with lock:
                print(f"{time.monotonic() - t0:8.3f} {tag} {line.rstrip()[:300]}", flush=True)

    out = threading.Thread(target=pump, args=(p.stdout, "O"))
    out.start()
    pump(p.stderr, "E")
    out.join()
    rc = p.wait()
    print(f"{time.monotonic() - t0:8.3f} exit {rc}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
