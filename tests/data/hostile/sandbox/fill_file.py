# SPDX-License-Identifier: MIT
# Writes argv[2] MiB to argv[1]; exit 3 on EFBIG (Python ignores SIGXFSZ, so RLIMIT_FSIZE shows
# up as that error), 0 if everything was written.
import errno, sys

try:
    with open(sys.argv[1], "wb", buffering=0) as f:
        for _ in range(int(sys.argv[2])):
            f.write(b"\0" * (1 << 20))
except OSError as e:
    print("write failed:", e)
    sys.exit(3 if e.errno == errno.EFBIG else 4)
