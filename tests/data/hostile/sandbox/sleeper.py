# SPDX-License-Identifier: MIT
# Writes its PID (as the sandbox sees it) to argv[1]/pid and sleeps 300 s; argv[2], a unique
# string, is in its command line so that the test finds its host PID in /proc.
import os, sys, time

with open(os.path.join(sys.argv[1], "pid.tmp"), "w") as f:
    f.write(str(os.getpid()))
os.rename(os.path.join(sys.argv[1], "pid.tmp"), os.path.join(sys.argv[1], "pid"))
time.sleep(300)
