# SPDX-License-Identifier: MIT
# Spins for 60 s of wall time; a CPU-time limit must kill it (SIGXCPU, then SIGKILL) long before.
import time

end = time.time() + 60
while time.time() < end:
    pass
