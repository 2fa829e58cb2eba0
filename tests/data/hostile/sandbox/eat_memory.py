# SPDX-License-Identifier: MIT
# Allocates argv[1] MiB; exit 3 on MemoryError (what RLIMIT_AS turns into), 0 if it got it all.
import sys

try:
    block = bytearray(int(sys.argv[1]) << 20)
except MemoryError:
    print("MemoryError")
    sys.exit(3)
