# SPDX-License-Identifier: MIT
# Waits for SIGINT (installed even if the caller left it ignored); on it writes argv[1]/sigint-got
# and exits 0. Exit 2 if no signal came within 60 s.
import os, signal, sys, time

folder = sys.argv[1]


def on_int(sig, frame):
    open(os.path.join(folder, "sigint-got"), "w").close()
    sys.exit(0)


signal.signal(signal.SIGINT, on_int)
open(os.path.join(folder, "sigint-ready"), "w").close()
time.sleep(60)
sys.exit(2)
