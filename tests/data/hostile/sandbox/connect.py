# SPDX-License-Identifier: MIT
# Opens a TCP connection to argv[1]:argv[2]; exit 0 if it connected, 1 (with the error) if not.
import socket, sys

try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3).close()
    print("connected to %s:%s" % (sys.argv[1], sys.argv[2]))
except OSError as e:
    print("no connection to %s:%s: %s" % (sys.argv[1], sys.argv[2], e))
    sys.exit(1)
