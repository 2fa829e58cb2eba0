# SPDX-License-Identifier: MIT
# Forks argv[1] children that sleep; exit 3 when a fork fails with EAGAIN (RLIMIT_NPROC), 0 when
# all of them started.
import errno, os, sys, time

children = []
try:
    for _ in range(int(sys.argv[1])):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children.append(pid)
    code = 0
except OSError as e:
    print("fork %d failed: %s" % (len(children) + 1, e))
    code = 3 if e.errno == errno.EAGAIN else 4
for pid in children:
    os.kill(pid, 9)
sys.exit(code)
