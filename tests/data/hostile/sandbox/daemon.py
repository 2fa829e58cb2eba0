# SPDX-License-Identifier: MIT
# Leaves a daemon behind (double fork + setsid) and exits 0. The daemon says it started, then
# sleeps 300 s and writes a marker; argv[1] (a unique string) is in its command line so that the
# test can look for it in /proc. The sandbox must kill it when this program exits.
import os, sys, time

marker, folder = sys.argv[1], sys.argv[2]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        open(os.path.join(folder, "daemon-started"), "w").close()
        time.sleep(300)
        open(os.path.join(folder, "daemon-" + marker), "w").close()
    os._exit(0)
for _ in range(200):  # wait until the daemon runs, so that the test proves it was killed
    if os.path.exists(os.path.join(folder, "daemon-started")):
        sys.exit(0)
    time.sleep(0.05)
sys.exit("daemon did not start")
