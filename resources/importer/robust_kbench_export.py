#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Export robust-kbench task folders to KernelSieve's task format.

A robust-kbench task is a folder (SakanaAI/robust-kbench, ``robust_kbench/kernel_task.py``) with

- ``func_forward.py``: ``forward_fn(x, weight, ..., scalars)``, ``class Model(nn.Module)`` whose
  ``forward(self, x, fn=forward_fn)`` calls ``fn(x, self.weight, ..., self.some_scalar)``, and
  ``get_inputs(**input_setting)``;
- ``config_forward.json``: lists of settings, ``single_input_configs``, ``single_init_configs``,
  ``single_shared_configs`` (and ``multi_*``); robust-kbench's ``ConfigTask.get_configs`` merges
  the shared setting into both, last. We use the first setting of each single_* list: the model is
  ``Model(**init_setting)``, the inputs ``get_inputs(**input_setting)``;
- optionally ``forward.cu``: a torch extension whose ``forward`` robust-kbench passes as ``fn``.

PATH is one task folder or a folder of task folders. Each task folder NAME becomes
``OUT/NAME/``: ``NAME.json`` (id ``RK-NAME``, level 0 unless the config has a ``level``),
``NAME.pt`` (the traced ``Model(**init)`` with ``fn`` bound to ``forward_fn``), a copy of
``func_forward.py``, exactly as kernelbench_export.py exports a KernelBench file (same inference of
distributions, same seed check in robust-kbench's order, same artifact). The spec has two more
fields: ``kernel_call``, how ``Model.forward`` calls ``fn`` (docs/external-kernels.md, "Call
plan"; ``{"error": ...}`` when that is not one plain call), and ``import.format`` /
``import.folder`` / ``import.config`` (the settings used) / ``import.kernel_file``.

Protocol, exit statuses and workers as in kernelbench_export.py (whose functions this reuses);
the "file" of each per-task event is the folder name.
"""

from __future__ import annotations

import argparse
import fnmatch
import inspect
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))

import kernelbench_export as kbx  # noqa: E402 - exits 4 with a "fatal" event when torch is missing
import kernel_capture as kc  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

FORWARD_FILE = "func_forward.py"
CONFIG_FILE = "config_forward.json"
KERNEL_FILE = "forward.cu"


def task_stem(folder: Path) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", folder.name) or "task"


class RobustKbenchSource(kbx.TaskSource):
    """A robust-kbench task folder, for kernelbench_export.export_task."""

    def __init__(self, folder: Path, uid: str):  # noqa: D107 - no super().__init__: other loading
        self.folder = folder.resolve()
        self.path = self.folder / FORWARD_FILE
        self.stem = task_stem(folder)
        self.tid = f"RK-{self.stem}"
        self.number = 0
        cfg_path = self.folder / CONFIG_FILE
        if not cfg_path.is_file():
            raise kbx.TaskFileError(f"has no {CONFIG_FILE} (robust-kbench's input and init settings)")
        try:
            self.config = json.loads(cfg_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise kbx.TaskFileError(f"{CONFIG_FILE}: cannot be read as JSON ({e})") from None
        try:
            self.input_setting, self.init_setting, self.config_notes = kc.first_settings(self.config)
        except kc.CaptureError as e:
            raise kbx.TaskFileError(f"{CONFIG_FILE}: {e}") from None
        level = self.config.get("level", 0)
        self.level = level if isinstance(level, int) and not isinstance(level, bool) and 0 <= level <= 9 else 0
        self.category = kbx.category_of(self.stem, self.level)
        spec = kbx.importlib.util.spec_from_file_location(f"_ks_robust_kbench_{uid}", str(self.path))
        if spec is None or spec.loader is None:
            raise kbx.TaskFileError(f"{FORWARD_FILE} cannot be imported as a Python module")
        self.mod = kbx.importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.mod)
        for name in ("forward_fn", "Model", "get_inputs"):
            if not hasattr(self.mod, name):
                raise kbx.TaskFileError(f"{FORWARD_FILE} defines no '{name}' (a robust-kbench task defines "
                                        f"forward_fn, class Model and get_inputs)")
        self.init_inputs: List[Any] = []
        self.source_name = FORWARD_FILE
        self.tags = ["imported", "robust-kbench"]
        self.forward_kwargs = {"fn": self.mod.forward_fn}
        self.kernel_call: Dict[str, Any] = {}

    def get_inputs(self) -> Any:
        return self.mod.get_inputs(**self.input_setting)

    def make_model(self) -> Any:
        return self.mod.Model(**self.init_setting)

    def replay(self, seed: str) -> str:
        return f"torch.manual_seed({seed}); get_inputs(**input_setting); Model(**init_setting)"

    def model_call(self) -> str:
        return "Model(**init_setting)"

    def dims_namespace(self) -> Dict[str, Any]:
        return {**self.init_setting, **self.input_setting}

    def description(self) -> str:
        doc = inspect.getdoc(self.mod.Model) or inspect.getdoc(self.mod.forward_fn) or ""
        first = doc.strip().split("\n\n")[0].replace("\n", " ").strip()
        return (first + " " if first else "") + f"(robust-kbench {self.folder.name})"

    def import_fields(self) -> Dict[str, Any]:
        kernel = self.folder / KERNEL_FILE
        return {
            "file": str(self.path),
            "format": "robust-kbench",
            "folder": str(self.folder),
            "config": {"file": CONFIG_FILE, "input": kbx._jsonable(self.input_setting),
                       "init": kbx._jsonable(self.init_setting)},
            "kernel_file": str(kernel) if kernel.is_file() else None,
        }

    def extra_fields(self, model: nn.Module, raw_inputs: List[Any], inputs: List[torch.Tensor],
                     param_names: Dict[int, str], notes: List[str]) -> Dict[str, Any]:
        notes.extend(self.config_notes)
        tensors = {}
        for own, t, kind in kc._named_tensors(model):
            if id(t) in param_names:
                tensors[id(t)] = (own, param_names[id(t)], "")
            else:
                tensors[id(t)] = (own, None, f"a {kind} that is not a task parameter (it stays a constant inside "
                                             f"the artifact); KernelSieve cannot pass it to the kernel")
        # fn's inputs in task order: the tensors get_inputs returned (the others are baked in).
        try:
            plan = kc.plan_forward_call(self.path, model, raw_inputs, tensors)
        except kc.CaptureError as e:
            plan = {"error": f"{FORWARD_FILE}: {e}"}
            notes.append(f"no kernel call plan: {e}")
        except BaseException as e:  # noqa: BLE001 - the task's own error
            msg = kc._exc_text(e, str(self.path))
            plan = {"error": f"{FORWARD_FILE}: Model.forward(*inputs, fn=...) raised {msg}"}
            notes.append(f"no kernel call plan: {msg}")
        self.kernel_call = plan
        return {"kernel_call": plan}


def _export_job(job: Dict[str, Any]) -> Dict[str, Any]:
    t0 = time.perf_counter()
    src = RobustKbenchSource(Path(job["folder"]), job["uid"])
    r = kbx.export_task(src, Path(job["out"]), job["device"], t0)
    r["kernel_call"] = src.kernel_call
    return r


kbx.JOB_HANDLERS["robust-kbench"] = _export_job


def find_task_folders(path: Path, globs: str) -> List[Path]:
    """PATH itself when it is a task folder, else its immediate subfolders that are."""
    if (path / FORWARD_FILE).is_file():
        folders = [path]
    else:
        folders = [p for p in path.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
                   and (p / FORWARD_FILE).is_file()]
    pats = [g.strip().lower() for g in globs.split(",") if g.strip()] if globs else []
    if pats:
        folders = [p for p in folders
                   if any(fnmatch.fnmatchcase(c, g) for c in (p.name.lower(), f"rk-{task_stem(p)}".lower())
                          for g in pats)]

    def natural(p: Path):
        m = re.match(r"(\d+)_", p.name)
        return (0, int(m.group(1)), p.name) if m else (1, 0, p.name)
    return sorted(folders, key=natural)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description="Export robust-kbench task folders to KernelSieve tasks "
                                             "(JSON lines on stdout).")
    ap.add_argument("path", help="a robust-kbench task folder (func_forward.py, config_forward.json) or a "
                                 "folder of them")
    ap.add_argument("--out", required=True, help="output suite folder; each task goes to OUT/<folder name>/")
    ap.add_argument("--tasks", default="", help="only task folders whose name or id matches (globs, comma-separated)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per task before it is abandoned")
    ap.add_argument("--jobs", type=int, default=0, help="tasks exported in parallel (default: min(4, cores))")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                    help="where the model runs while tracing (default: cuda when available)")
    args = ap.parse_args(argv)

    path = Path(args.path)
    if not path.is_dir():
        kbx.emit({"event": "fatal", "code": 3, "error": f"{path}: not a folder"})
        return 3
    folders = find_task_folders(path, args.tasks)
    if not folders:
        kbx.emit({"event": "fatal", "code": 3,
                  "error": f"{path}: no robust-kbench task folders (with {FORWARD_FILE})" +
                           (f" match --tasks '{args.tasks}'" if args.tasks else "")})
        return 3
    skipped = [] if (path / FORWARD_FILE).is_file() else sorted(
        p.name for p in path.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
        and not (p / FORWARD_FILE).is_file())
    out_root = Path(args.out)
    try:
        out_root.mkdir(parents=True, exist_ok=True)
        probe = out_root / ".ks_write_probe"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        kbx.emit({"event": "fatal", "code": 5, "error": f"cannot write to {out_root}: {e.strerror or e}"})
        return 5
    cores = os.cpu_count() or 1
    jobs = args.jobs if args.jobs > 0 else max(1, min(4, cores, len(folders)))
    jobs = min(jobs, len(folders))
    threads = max(1, cores // jobs)
    kbx.emit({"event": "start", "format": "robust-kbench", "folder": str(path.resolve()),
              "out": str(out_root.resolve()), "total": len(folders), "level": 0, "jobs": jobs,
              "exporter_version": kbx.EXPORTER_VERSION, "torch_version": torch.__version__,
              "python": sys.executable, "skipped": skipped})
    t0 = time.perf_counter()

    def cleanup(i: int) -> None:
        d = out_root / task_stem(folders[i])
        for name in (f"{task_stem(folders[i])}.json", f"{task_stem(folders[i])}.pt", FORWARD_FILE):
            try:
                (d / name).unlink()  # a stale export of a now-broken task must not load
            except OSError:
                pass
        try:
            d.rmdir()
        except OSError:
            pass
    jobs_list = [{"kind": "robust-kbench", "file": str((f / FORWARD_FILE).resolve()), "folder": str(f.resolve()),
                  "out": str(out_root / task_stem(f)), "device": args.device, "uid": str(i)}
                 for i, f in enumerate(folders)]
    counts = kbx.run_pool(jobs_list, [f.name for f in folders], cleanup, args.timeout, jobs, threads)
    kbx.emit({"event": "done", "ok": counts["ok"], "failed": counts["error"], "total": len(folders),
              "seconds": round(time.perf_counter() - t0, 3), "out": str(out_root.resolve())})
    return 0


if __name__ == "__main__":
    sys.exit(main())
