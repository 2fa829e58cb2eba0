#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The four statistical filters written the plain Python way, for timing KernelSieve against.

Our own code (not robust-kbench's, which is not on the machines): it follows the filter
definitions robust-kbench published (docs in ../shared/docs/mission.md, "Filters") the way a
Python evaluator computes them: per seed ``torch.manual_seed(s)``, ``get_inputs()``, the model
built after the inputs, the forward on the device, the output copied to the host, the seeds
stacked in NumPy and the statistics taken there. Pass 2 (input impact) builds the model once
from seed 42 and re-draws the inputs per seed.

Usage: rkb_formulas.py TASK.py... [--device cuda] [--seeds 5] [--csv out.csv]
Prints one line per task (wall seconds, the four flags) and the total.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.dont_write_bytecode = True
THRESH = 0.01


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def forward(mod, model, device):
    inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in mod.get_inputs()]
    with torch.no_grad():
        out = model(*inputs)
    return out.float().cpu().numpy()


def std_all_below(a: np.ndarray, axis: int) -> bool:
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.std(a, axis=axis, ddof=1)
    return bool(np.all(s < THRESH))  # NaN (a size-1 axis) never passes


def audit(path: Path, device: str, seeds: int):
    mod = load(path)
    init = mod.get_init_inputs()
    outs = []
    for s in range(seeds):
        torch.manual_seed(s)
        inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in mod.get_inputs()]
        model = mod.Model(*init).to(device)
        with torch.no_grad():
            outs.append(model(*inputs).float().cpu().numpy())
        del model, inputs
    stacked = np.stack(outs)
    del outs
    flags = {
        "output_range": bool(np.all(np.abs(stacked) < THRESH)),
        "output_std": std_all_below(stacked, 0),
        "output_axes": any(std_all_below(stacked, a) for a in range(stacked.ndim)),
    }
    del stacked
    torch.manual_seed(42)
    model = mod.Model(*init).to(device)
    outs = []
    for s in range(seeds):
        torch.manual_seed(s)
        outs.append(forward(mod, model, device))
    flags["input_impact"] = std_all_below(np.stack(outs), 0)
    return flags


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tasks", nargs="+", type=Path)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--csv", type=Path)
    a = ap.parse_args()
    rows = []
    t_all = time.perf_counter()
    for p in a.tasks:
        t0 = time.perf_counter()
        try:
            flags, err = audit(p, a.device, a.seeds), ""
        except Exception as e:  # a task that fails is reported and the rest goes on
            flags, err = {}, f"{type(e).__name__}: {e}".splitlines()[0]
        if a.device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        dt = time.perf_counter() - t0
        rows.append({"task": p.stem, "seconds": round(dt, 3), **flags, "error": err})
        print(f"{p.stem:48s} {dt:7.2f}s {','.join(k for k, v in flags.items() if v) or err or 'no flags'}",
              flush=True)
    total = time.perf_counter() - t_all
    print(f"total {total:.2f} s for {len(a.tasks)} tasks")
    if a.csv:
        with a.csv.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["task", "seconds", "output_range", "output_std", "output_axes",
                                              "input_impact", "error"])
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
