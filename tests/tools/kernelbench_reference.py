#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reference values for imported KernelBench tasks, computed from the ORIGINAL task files.

For every task spec in an imported suite folder (``kernelsieve-cli import-kernelbench`` output)
this loads the KernelBench file the spec came from (``import.file``) and, in the engine's seed
order, which is robust-kbench's (inputs, then parameters; on the CPU; training mode,
``torch.no_grad()``; robust_kbench/filter/forward.py, docs/task-format.md "Seed semantics"):

- seed 0: ``torch.manual_seed(0); inputs = get_inputs(); model = Model(*get_init_inputs());
  out = model(*inputs)`` and writes the inputs, the parameters (in the spec's order) and the
  output as raw little-endian files ``<stem>.ref.<name>.bin`` beside the spec;
- seed 0 in the other order, KernelBench's own (``torch.manual_seed(0); model = Model(...);
  inputs = get_inputs()``, what the engine and exporters before 1.2 used): inputs and parameters
  as ``<stem>.pf.<name>.bin``, listed under ``"params_first"``;
- seeds 0..S-1 in the same order: every input and parameter, bit for bit, as
  ``<stem>.seed<s>.<name>.bin``, listed under ``"seeds"`` (the engine must draw exactly these);
- the four robust-kbench filters over seeds 0..S-1 with ``tests/tools/suite_check.py``'s
  ``filter_metrics`` / ``flags_from`` (pass 1: seed s, new inputs, then a new model; pass 2:
  model from seed 42, inputs from seed s, as robust-kbench does).

Everything lands in ``<stem>.ref.json``. Test data only: the C++ test (tests/tst_import.cpp)
compares the engine's forward, its seed-0 draws and its flags with these.

Usage: kernelbench_reference.py SUITE_FOLDER [--seeds 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from suite_check import Thresholds, filter_metrics, flags_from  # noqa: E402

DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.int64: "int64", torch.int32: "int32",
          torch.bool: "bool", torch.float16: "float16", torch.bfloat16: "bfloat16"}


def load(path: Path, uid: str):
    spec = importlib.util.spec_from_file_location(f"_ks_ref_{uid}", str(path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(mod, init, seed: int, model=None):
    """robust-kbench's loop body: set_seed(seed); get_inputs(); Model(...) unless given; forward."""
    torch.manual_seed(seed)
    inputs = mod.get_inputs()
    if model is None:
        model = mod.Model(*init)
    with torch.no_grad():
        out = model(*inputs)
    return model, inputs, out


def task_tensors(model) -> dict:
    """The model's tensors by the names the exporter gives them: parameters, buffers and plain
    tensor attributes (``self.h0 = torch.randn(...)``), every path of a shared module."""
    named = {}
    for mname, m in model.named_modules(remove_duplicate=False):
        prefix = f"{mname}." if mname else ""
        for a, t in list(m._parameters.items()) + list(m._buffers.items()) + list(vars(m).items()):
            if isinstance(t, torch.Tensor):
                named.setdefault(prefix + a, t)
    return named


def write_bin(path: Path, t: torch.Tensor) -> None:
    path.write_bytes(bytes(t.detach().contiguous().clone().cpu().untyped_storage()))


def clean(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite")
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    torch.set_num_threads(1)
    count = 0
    for spec_path in sorted(Path(args.suite).rglob("*.json")):
        spec = json.loads(spec_path.read_text())
        if spec.get("kind") != "kernelsieve.task" or "import" not in spec:
            continue
        stem = spec_path.stem
        mod = load(Path(spec["import"]["file"]), stem)
        init = list(mod.get_init_inputs())

        model, inputs, out = run(mod, init, 0)
        named = task_tensors(model)
        tensors = [t for t in inputs if isinstance(t, torch.Tensor)]
        ref = {"id": spec["id"], "seed": 0, "inputs": [], "params": []}
        for kind, specs, values in (("inputs", spec["inputs"], tensors),
                                    ("params", spec["params"], [named[p["name"].removeprefix("param.")]
                                                                for p in spec["params"]])):
            for s, t in zip(specs, values):
                f = spec_path.parent / f"{stem}.ref.{s['name']}.bin"
                write_bin(f, t)
                ref[kind].append({"name": s["name"], "file": f.name, "shape": list(t.shape), "dtype": DTYPES[t.dtype]})
        torch.manual_seed(0)  # KernelBench's own order: the model, then the inputs
        pf_named = task_tensors(mod.Model(*init))
        pf_inputs = [t for t in mod.get_inputs() if isinstance(t, torch.Tensor)]
        ref["params_first"] = {"inputs": [], "params": []}
        for kind, specs, values in (("inputs", spec["inputs"], pf_inputs),
                                    ("params", spec["params"], [pf_named[p["name"].removeprefix("param.")]
                                                                for p in spec["params"]])):
            for s, t in zip(specs, values):
                f = spec_path.parent / f"{stem}.pf.{s['name']}.bin"
                write_bin(f, t)
                ref["params_first"][kind].append({"name": s["name"], "file": f.name, "shape": list(t.shape),
                                                  "dtype": DTYPES[t.dtype]})
        f = spec_path.parent / f"{stem}.ref.output.bin"
        write_bin(f, out.float())
        ref["output"] = {"file": f.name, "shape": list(out.shape), "dtype": "float32"}

        ref["seeds"] = []
        for seed in range(args.seeds):
            torch.manual_seed(seed)  # robust-kbench's order: get_inputs(), then Model(...)
            s_inputs = [t for t in mod.get_inputs() if isinstance(t, torch.Tensor)]
            s_named = task_tensors(mod.Model(*init))
            entry = {"seed": seed, "inputs": [], "params": []}
            for kind, specs, values in (("inputs", spec["inputs"], s_inputs),
                                        ("params", spec["params"], [s_named[p["name"].removeprefix("param.")]
                                                                    for p in spec["params"]])):
                for s, t in zip(specs, values):
                    f = spec_path.parent / f"{stem}.seed{seed}.{s['name']}.bin"
                    write_bin(f, t)
                    entry[kind].append({"name": s["name"], "file": f.name, "shape": list(t.shape),
                                        "dtype": DTYPES[t.dtype]})
            ref["seeds"].append(entry)

        outs = [out.float()] + [run(mod, init, s)[2].float() for s in range(1, args.seeds)]
        all_out = torch.stack(outs)
        torch.manual_seed(42)
        fixed = mod.Model(*init)
        impact = torch.stack([run(mod, init, s, model=fixed)[2].float() for s in range(args.seeds)])
        m = filter_metrics(all_out, impact)
        ref["metrics"] = {k: clean(v) for k, v in m.items()}
        ref["flags"] = flags_from(m, Thresholds())
        (spec_path.parent / f"{stem}.ref.json").write_text(json.dumps(ref, indent=1) + "\n")
        count += 1
    print(f"{count} reference files written under {args.suite}")
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main())
