# A task that runs out of GPU memory unless it has the device to itself (issue 17): the importer
# retries an out-of-memory file alone, with KS_IMPORT_ALONE=1, before it reports the error.
import os

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x) * 2.0


def get_inputs():
    if os.environ.get("KS_IMPORT_ALONE") != "1":
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 15.90 GiB (fixture)")
    # The test checks that the retries run after the other files, on one worker (its pid).
    print(f"fixture: retried alone in pid {os.getpid()}", flush=True)
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
