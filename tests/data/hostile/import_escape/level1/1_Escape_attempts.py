# A KernelBench-format task file that tries to leave traces on the machine that imports it
# (tests/sandbox_cli_test.cmake): files outside the output suite, a daemon that outlives the
# import, a network connection. The model itself is an ordinary ReLU.
import os
import socket
import subprocess

import torch
import torch.nn as nn

_where = os.environ.get("KS_ESCAPE_DIR", "")
if _where:
    for target in (os.path.join(_where, "escaped-file"), os.path.join(os.path.dirname(__file__), "escaped-file")):
        try:
            with open(target, "w") as f:
                f.write("written by a task file\n")
        except OSError:
            pass
    try:  # a daemon in its own session, which a kill of the process group does not reach
        subprocess.Popen(["sh", "-c", "sleep 120; touch '%s'" % os.path.join(_where, "daemon-was-here")],
                         start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        pass
    try:
        socket.create_connection(("127.0.0.1", int(os.environ.get("KS_ESCAPE_PORT", "9"))), timeout=2).close()
        with open(os.path.join(_where, "network-was-reachable"), "w") as f:
            f.write("connected\n")
    except OSError:
        pass


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
