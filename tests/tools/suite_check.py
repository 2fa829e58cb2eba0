#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validate and measure a KernelSieve task suite (developer tool).

For every task JSON (``"kind": "kernelsieve.task"``) under a suite folder this
script

1. validates the spec against ``docs/task-format.md`` (errors name the file;
   a little stricter than the engine: the entry's argument names must equal
   the spec's input then parameter names),
2. compiles the TorchScript source the way LibTorch's ``torch::jit::compile``
   does (the name ``torch`` resolves to the ``aten`` builtins, nothing else from
   Python is visible, so ``torch.nn.functional`` or ``math`` are rejected),
3. draws parameters and inputs with the format's seed semantics
   (``torch.manual_seed(s)``; parameters in spec order; inputs in spec order;
   floats drawn in float32, ``kaiming_uniform`` as ``rand * 2b - b``;
   transforms in float; cast to the spec's dtype last) -- the same tensors
   the C++ engine draws,
4. runs the entry for S seeds (default 5: seeds 0..4) on the chosen preset
   (default ``small``) and device (default CPU), timing every call (the
   reported seconds per call is the median, skipping TorchScript's first
   profiling runs), and
5. computes the four robust-kbench filters exactly as ``mission.md`` defines
   them on the stacked float32 outputs ``all`` of shape ``[S, *out]``:

   range   flagged iff every value of ``all`` lies in (-t, t); metric max|all|
   std     flagged iff std(all, dim=0) (unbiased) < t everywhere; metric max
   axes    flagged iff for some axis a (seed axis 0 included)
           std(all, dim=a) < t everywhere; metric min over a of max std, and a.
           A size-1 axis gives NaN, which never passes.
   impact  parameters drawn once after manual_seed(42), inputs re-drawn per
           seed after manual_seed(s); flagged iff std over seeds < t everywhere

   NaN anywhere in a metric makes the comparison false (never flagged).

``--full-shapes`` runs every task on the ``meta`` device (FakeTensors where an
op has no meta kernel) at the ``full`` preset, without computing or allocating,
to prove the published shapes are consistent; it also checks that the small
preset keeps every dim that is larger than one at full size and the output's
rank and size-1 axes.

Examples::

    tests/tools/suite_check.py                         # whole built-in suite
    tests/tools/suite_check.py --tasks 'L1-(12|23|36)$|L2-13'
    tests/tools/suite_check.py --full-shapes
    tests/tools/suite_check.py --json out.json --seeds 10

Exit status: 0 all good, 1 validation/compile/run errors, 2 a task with known
expected flags (the seed cases) did not get them.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch

FORMAT_VERSION = 1
TASK_KIND = "kernelsieve.task"

CATEGORIES = {
    "matmul", "activation", "normalization", "pooling", "reduction", "convolution",
    "loss", "scan", "elementwise", "fusion", "synthetic",
}
DTYPES = {
    "float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32,
    "bool": torch.bool,
}
# dist -> (required fields, optional fields)
DISTS = {
    "normal": (set(), {"mean", "std"}),
    "uniform": (set(), {"low", "high"}),
    "randint": ({"high"}, {"low"}),
    "kaiming_uniform": (set(), {"fan_in", "fan_in_of"}),
    "constant": ({"value"}, set()),
}
POSTS = {
    "softmax": {"dim"},
    "log_softmax": {"dim"},
    "abs": set(),
    "affine": {"scale", "shift"},
}
PRESETS = ("full", "small")
TASK_KEYS_REQUIRED = {"kind", "format_version", "id", "level", "number", "name", "category"}
TASK_KEYS_OPTIONAL = {"description", "source", "source_file", "entry", "dims", "inputs", "params", "tags"}
SPEC_KEYS = {"name", "shape", "dtype", "init", "post"}
FILTERS = ("range", "std", "axes", "impact")

# The seed document's cases and the flags the built-in suite must reproduce.
EXPECTED_FLAGS: Dict[str, Dict[str, bool]] = {
    "L1-12": {"range": False, "std": False, "axes": False, "impact": False},
    "L1-23": {"range": True, "std": True, "axes": True, "impact": True},
    "L1-36": {"range": False, "std": False, "axes": False, "impact": False},
    "L2-13": {"range": False, "std": True, "axes": True, "impact": True},
    "L2-13r": {"std": False, "axes": False, "impact": False},
}


class SuiteError(Exception):
    """A problem with one task file; the message names the file."""


# --------------------------------------------------------------------------
# Loading and validation
# --------------------------------------------------------------------------

@dataclass
class Task:
    path: Path
    spec: Dict[str, Any]
    source: str
    cu: Any = None
    fn: Any = None

    @property
    def id(self) -> str:
        return self.spec["id"]

    def dims(self, preset: str) -> Dict[str, int]:
        """Sizes for `preset`; a name the preset does not give comes from `full`."""
        return merged_dims(self.spec.get("dims", {}), preset)

    def shape(self, tspec: Dict[str, Any], preset: str) -> List[int]:
        d = self.dims(preset)
        return [d[s] if isinstance(s, str) else s for s in tspec["shape"]]


def merged_dims(dims: Dict[str, Dict[str, int]], preset: str) -> Dict[str, int]:
    out = dict(dims.get("full", {}))
    out.update(dims.get(preset, {}))
    return out


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _validate_tensor_spec(where: str, ts: Any, dims: Dict[str, Dict[str, int]],
                          tensor_names: Sequence[str]) -> None:
    if not isinstance(ts, dict):
        raise SuiteError(f"{where}: must be an object")
    unknown = set(ts) - SPEC_KEYS
    if unknown:
        raise SuiteError(f"{where}: unknown field(s) {sorted(unknown)}")
    name = ts.get("name")
    if not isinstance(name, str) or not name.isidentifier():
        raise SuiteError(f"{where}: 'name' must be an identifier, got {name!r}")
    shape = ts.get("shape")
    if not isinstance(shape, list):
        raise SuiteError(f"{where} ({name}): 'shape' must be a list")
    for s in shape:
        if isinstance(s, str):
            for preset in PRESETS:
                if s not in merged_dims(dims, preset):
                    where_looked = "dims.full" if preset == "full" else f"dims.{preset} or dims.full"
                    raise SuiteError(f"{where} ({name}): dim '{s}' is not defined in {where_looked}")
        elif not (_is_int(s) and s >= 0):
            raise SuiteError(f"{where} ({name}): shape entries must be ints >= 0 or dim names, got {s!r}")
    dtype = ts.get("dtype", "float32")
    if dtype not in DTYPES:
        raise SuiteError(f"{where} ({name}): unknown dtype {dtype!r}")
    init = ts.get("init", {"dist": "normal"})
    if not isinstance(init, dict) or "dist" not in init:
        raise SuiteError(f"{where} ({name}): 'init' must be an object with 'dist'")
    dist = init["dist"]
    if dist not in DISTS:
        raise SuiteError(f"{where} ({name}): unknown dist {dist!r}")
    required, optional = DISTS[dist]
    fields = set(init) - {"dist"}
    if required - fields:
        raise SuiteError(f"{where} ({name}): dist {dist} needs {sorted(required - fields)}")
    if fields - required - optional:
        raise SuiteError(f"{where} ({name}): dist {dist} has unknown field(s) {sorted(fields - required - optional)}")
    for k in fields:
        if k == "fan_in_of":
            if init[k] not in tensor_names:
                raise SuiteError(f"{where} ({name}): fan_in_of {init[k]!r} is not a tensor of this task")
        elif not _is_num(init[k]):
            raise SuiteError(f"{where} ({name}): init.{k} must be a number")
    if dist == "normal" and not init.get("std", 1.0) >= 0:
        raise SuiteError(f"{where} ({name}): normal std must be >= 0")
    if dist == "uniform" and not init.get("high", 1.0) >= init.get("low", 0.0):
        raise SuiteError(f"{where} ({name}): uniform needs low <= high")
    if dist == "randint" and not init["high"] > init.get("low", 0):
        raise SuiteError(f"{where} ({name}): randint needs low < high")
    if dist == "kaiming_uniform" and "fan_in" in init and not init["fan_in"] > 0:
        raise SuiteError(f"{where} ({name}): kaiming_uniform fan_in must be > 0")
    if dist == "kaiming_uniform" and "fan_in" in init and "fan_in_of" in init:
        raise SuiteError(f"{where} ({name}): give either fan_in or fan_in_of, not both")
    if dist == "kaiming_uniform" and "fan_in" not in init and "fan_in_of" not in init and len(shape) < 2:
        raise SuiteError(f"{where} ({name}): kaiming_uniform on a tensor of rank < 2 needs fan_in or fan_in_of")
    if dist == "randint" and not (_is_int(init["high"]) and _is_int(init.get("low", 0))):
        raise SuiteError(f"{where} ({name}): randint bounds must be ints")
    post = ts.get("post", [])
    if not isinstance(post, list):
        raise SuiteError(f"{where} ({name}): 'post' must be a list")
    for p in post:
        if not isinstance(p, dict) or p.get("op") not in POSTS:
            raise SuiteError(f"{where} ({name}): bad post transform {p!r}")
        extra = set(p) - {"op"} - POSTS[p["op"]]
        if extra:
            raise SuiteError(f"{where} ({name}): post {p['op']} has unknown field(s) {sorted(extra)}")
        for k in set(p) - {"op"}:
            if (k == "dim" and not _is_int(p[k])) or (k != "dim" and not _is_num(p[k])):
                raise SuiteError(f"{where} ({name}): post {p['op']}.{k} has a bad value {p[k]!r}")


def validate_spec(path: Path, spec: Dict[str, Any]) -> None:
    """Raise SuiteError naming `path` when `spec` breaks docs/task-format.md."""
    w = str(path)
    missing = TASK_KEYS_REQUIRED - set(spec)
    if missing:
        raise SuiteError(f"{w}: missing field(s) {sorted(missing)}")
    unknown = set(spec) - TASK_KEYS_REQUIRED - TASK_KEYS_OPTIONAL
    if unknown:
        raise SuiteError(f"{w}: unknown field(s) {sorted(unknown)}")
    if spec["format_version"] != FORMAT_VERSION:
        raise SuiteError(f"{w}: format_version must be {FORMAT_VERSION}")
    if not isinstance(spec["id"], str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", spec["id"]):
        raise SuiteError(f"{w}: bad id {spec['id']!r}")
    if spec["level"] not in (0, 1, 2, 3) or not _is_int(spec["level"]):
        raise SuiteError(f"{w}: level must be 0, 1, 2 or 3")
    if not _is_int(spec["number"]) or spec["number"] < 0:
        raise SuiteError(f"{w}: number must be an int >= 0")
    if not isinstance(spec["name"], str) or not spec["name"]:
        raise SuiteError(f"{w}: name must be a non-empty string")
    if spec["number"] > 0 and not spec["name"].startswith(f"{spec['number']}_"):
        raise SuiteError(f"{w}: name {spec['name']!r} must start with '{spec['number']}_'")
    if spec["category"] not in CATEGORIES:
        raise SuiteError(f"{w}: unknown category {spec['category']!r}")
    if ("source" in spec) == ("source_file" in spec):
        raise SuiteError(f"{w}: give exactly one of 'source' and 'source_file'")
    if not isinstance(spec.get("description", ""), str):
        raise SuiteError(f"{w}: description must be a string")
    if not isinstance(spec.get("entry", "forward"), str):
        raise SuiteError(f"{w}: entry must be a string")
    tags = spec.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise SuiteError(f"{w}: tags must be a list of strings")
    dims = spec.get("dims", {})
    if not isinstance(dims, dict):
        raise SuiteError(f"{w}: dims must map presets to {{name: size}}")
    for preset, d in dims.items():
        if preset not in PRESETS:
            raise SuiteError(f"{w}: unknown preset {preset!r} in dims (expected one of {', '.join(PRESETS)})")
        if not isinstance(d, dict) or not all(_is_int(v) and v >= 0 for v in d.values()):
            raise SuiteError(f"{w}: dims.{preset} must map names to ints >= 0")
    for key in ("inputs", "params"):
        if not isinstance(spec.setdefault(key, []), list):
            raise SuiteError(f"{w}: {key} must be a list")
    if not spec["inputs"] and not spec["params"]:
        raise SuiteError(f"{w}: a task needs at least one input")
    all_names = [t.get("name") for k in ("inputs", "params") for t in spec[k] if isinstance(t, dict)]
    names: List[str] = []
    for key in ("inputs", "params"):
        for i, ts in enumerate(spec[key]):
            _validate_tensor_spec(f"{w}: {key}[{i}]", ts, dims, all_names)
            names.append(ts["name"])
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SuiteError(f"{w}: duplicate tensor name(s) {sorted(dup)}")


def _native_resolver(name: str) -> Any:
    """Mimic LibTorch's nativeResolver: only `torch` (the aten builtins) exists."""
    return torch.ops.aten if name == "torch" else None


def compile_source(where: str, source: str, entry: str) -> Tuple[Any, Any]:
    if not source.endswith("\n"):
        source += "\n"  # the TorchScript lexer wants a final newline
    cu = torch._C.CompilationUnit()
    try:
        cu.define(source, _native_resolver)
    except Exception as e:  # noqa: BLE001 - report the compiler's message
        raise SuiteError(f"{where}: TorchScript compile error:\n{e}") from None
    fn = cu.find_function(entry)
    if fn is None:
        raise SuiteError(f"{where}: entry function {entry!r} not found in the source")
    return cu, fn


def load_task(path: Path) -> Optional[Task]:
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise SuiteError(f"{path}: invalid JSON: {e}") from None
    if not isinstance(spec, dict) or spec.get("kind") != TASK_KIND:
        return None
    validate_spec(path, spec)
    if "source_file" in spec:
        src_path = path.parent / spec["source_file"]
        if not src_path.is_file():
            raise SuiteError(f"{path}: source_file {spec['source_file']!r} not found")
        source = src_path.read_text(encoding="utf-8")
    else:
        source = spec["source"]
    task = Task(path=path, spec=spec, source=source)
    task.cu, task.fn = compile_source(str(path), source, spec.get("entry", "forward"))
    args = task.fn.schema.arguments
    want = [t["name"] for t in spec["inputs"]] + [t["name"] for t in spec["params"]]
    if len(args) != len(want):
        raise SuiteError(f"{path}: entry takes {len(args)} argument(s) but the spec lists "
                         f"{len(want)} (inputs then params: {want})")
    got = [a.name for a in args]
    if got != want:
        raise SuiteError(f"{path}: entry arguments {got} do not match spec names {want}")
    rets = task.fn.schema.returns
    if len(rets) != 1 or str(rets[0].type) != "Tensor":
        raise SuiteError(f"{path}: entry must return one Tensor")
    return task


def load_suite(root: Path, pattern: Optional[str]) -> Tuple[List[Task], List[str]]:
    tasks: List[Task] = []
    errors: List[str] = []
    seen: Dict[str, Path] = {}
    rx = re.compile(pattern) if pattern else None
    for path in sorted(root.rglob("*.json")):
        try:
            task = load_task(path)
        except SuiteError as e:
            errors.append(str(e))
            continue
        if task is None:
            continue
        if task.id in seen:
            errors.append(f"{path}: id {task.id!r} already used by {seen[task.id]}")
            continue
        seen[task.id] = path
        if rx is None or rx.search(task.id):
            tasks.append(task)
    tasks.sort(key=_task_sort_key)
    return tasks, errors


def _task_sort_key(t: Task) -> Tuple[int, str, int, str]:
    m = re.match(r"([A-Za-z]+)(\d*)-(\d+)(.*)", t.id)
    if not m:
        return (9, t.id, 0, "")
    order = {"L1": 0, "L2": 1, "L3": 2, "KS": 3}
    return (order.get(m.group(1) + m.group(2), 8), m.group(1) + m.group(2), int(m.group(3)), m.group(4))


# --------------------------------------------------------------------------
# Drawing inputs and parameters (seed semantics of the format)
# --------------------------------------------------------------------------

def _fan_in(shape: Sequence[int]) -> int:
    """PyTorch's rule: shape[1] * prod(shape[2:]) (also used for transposed convs)."""
    return int(shape[1]) * int(math.prod(shape[2:]))


def draw_tensor(task: Task, ts: Dict[str, Any], preset: str, device: torch.device) -> torch.Tensor:
    """Draw one tensor. Floats are drawn in float32 (as torch.randn does by default) and cast to
    the spec's dtype at the end; randint draws int64. Transforms run in float (an integer draw is
    cast to float32 first), then the result is cast to the spec's dtype."""
    shape = task.shape(ts, preset)
    dtype = DTYPES[ts.get("dtype", "float32")]
    fdtype = torch.float32
    init = ts.get("init", {"dist": "normal"})
    dist = init["dist"]
    if dist == "normal":
        t = torch.randn(shape, dtype=fdtype, device=device) * init.get("std", 1.0) + init.get("mean", 0.0)
    elif dist == "uniform":
        low, high = init.get("low", 0.0), init.get("high", 1.0)
        t = torch.rand(shape, dtype=fdtype, device=device) * (high - low) + low
    elif dist == "randint":
        t = torch.randint(init.get("low", 0), init["high"], shape, dtype=torch.int64, device=device)
    elif dist == "kaiming_uniform":
        if "fan_in" in init:
            fan_in = init["fan_in"]
        elif "fan_in_of" in init:
            ref = next(p for p in task.spec["params"] + task.spec["inputs"] if p["name"] == init["fan_in_of"])
            fan_in = _fan_in(task.shape(ref, preset))
        else:
            fan_in = _fan_in(shape)
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        t = torch.rand(shape, dtype=fdtype, device=device) * (2 * bound) - bound
    elif dist == "constant":
        t = torch.full(shape, init["value"], dtype=fdtype, device=device)
    else:  # validated earlier
        raise AssertionError(dist)
    for p in ts.get("post", []):
        if not t.dtype.is_floating_point:
            t = t.to(torch.float32)
        op = p["op"]
        if op == "softmax":
            t = t.softmax(p.get("dim", -1))
        elif op == "log_softmax":
            t = t.log_softmax(p.get("dim", -1))
        elif op == "abs":
            t = t.abs()
        elif op == "affine":
            t = t * p.get("scale", 1.0) + p.get("shift", 0.0)
    return t.to(dtype)


def draw_params(task: Task, preset: str, device: torch.device) -> List[torch.Tensor]:
    return [draw_tensor(task, p, preset, device) for p in task.spec["params"]]


def draw_inputs(task: Task, preset: str, device: torch.device) -> List[torch.Tensor]:
    return [draw_tensor(task, i, preset, device) for i in task.spec["inputs"]]


# --------------------------------------------------------------------------
# Filters
# --------------------------------------------------------------------------

@dataclass
class Thresholds:
    range: float = 0.01
    std: float = 0.01
    axes: float = 0.01
    impact: float = 0.01


def _max(t: torch.Tensor) -> float:
    """Max that propagates NaN (so that 'NaN < t' never flags)."""
    if t.numel() == 0:
        return float("nan")
    if torch.isnan(t).any():
        return float("nan")
    return float(t.max())


def _std(t: torch.Tensor, dim: int) -> torch.Tensor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # size-1 axis: degrees of freedom <= 0 -> NaN
        return torch.std(t, dim=dim, correction=1)


def filter_metrics(all_out: torch.Tensor, impact_out: torch.Tensor) -> Dict[str, Any]:
    """Raw metric values; a filter flags when its metric is < its threshold."""
    m: Dict[str, Any] = {}
    m["range"] = _max(all_out.abs())
    m["std"] = _max(_std(all_out, 0))
    per_axis = [_max(_std(all_out, a)) for a in range(all_out.dim())]
    m["axes_per_axis"] = per_axis
    finite = [(v, a) for a, v in enumerate(per_axis) if not math.isnan(v)]
    m["axes"], m["axes_axis"] = min(finite) if finite else (float("nan"), None)
    m["impact"] = _max(_std(impact_out, 0))
    return m


def flags_from(metrics: Dict[str, Any], th: Thresholds) -> Dict[str, bool]:
    # NaN comparisons are False, so NaN never flags.
    return {
        "range": metrics["range"] < th.range,
        "std": metrics["std"] < th.std,
        "axes": any(v < th.axes for v in metrics["axes_per_axis"]),
        "impact": metrics["impact"] < th.impact,
    }


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

@dataclass
class Result:
    task: Task
    out_shape: Tuple[int, ...] = ()
    out_dtype: str = ""
    sec_per_call: float = float("nan")
    metrics: Dict[str, Any] = field(default_factory=dict)
    flags: Dict[str, bool] = field(default_factory=dict)
    error: Optional[str] = None


def _call(task: Task, args: List[torch.Tensor], device: torch.device) -> Tuple[torch.Tensor, float]:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    t0 = time.perf_counter()
    with torch.no_grad():
        out = task.fn(*args)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return out, time.perf_counter() - t0


def run_task(task: Task, preset: str, seeds: Sequence[int], device: torch.device,
             th: Thresholds, impact_param_seed: int = 42) -> Result:
    res = Result(task=task)
    times: List[float] = []
    try:
        outs = []
        for s in seeds:
            torch.manual_seed(s)
            params = draw_params(task, preset, device)
            inputs = draw_inputs(task, preset, device)
            out, dt = _call(task, inputs + params, device)
            times.append(dt)
            outs.append(out.detach().to(torch.float32).cpu())
        res.out_shape = tuple(outs[0].shape)
        res.out_dtype = str(out.dtype).replace("torch.", "")
        all_out = torch.stack(outs)
        del outs
        torch.manual_seed(impact_param_seed)
        params = draw_params(task, preset, device)
        outs = []
        for s in seeds:
            torch.manual_seed(s)
            inputs = draw_inputs(task, preset, device)
            out, dt = _call(task, inputs + params, device)
            times.append(dt)
            outs.append(out.detach().to(torch.float32).cpu())
        impact_out = torch.stack(outs)
        del outs
    except Exception as e:  # noqa: BLE001 - report and continue with the next task
        res.error = f"{task.path}: run failed: {type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
        return res
    # The first calls include TorchScript's profiling runs; the median ignores them.
    res.sec_per_call = statistics.median(times[2:] if len(times) > 4 else times)
    res.metrics = filter_metrics(all_out, impact_out)
    res.flags = flags_from(res.metrics, th)
    return res


def _shape_only_call(task: Task, preset: str) -> torch.Tensor:
    """Run without computing: on the meta device, or with FakeTensors where an op has no meta
    kernel."""
    try:
        meta = torch.device("meta")
        return task.fn(*(draw_inputs(task, preset, meta) + draw_params(task, preset, meta)))
    except (NotImplementedError, RuntimeError):
        from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode():
            cpu = torch.device("cpu")
            return task.fn(*(draw_inputs(task, preset, cpu) + draw_params(task, preset, cpu)))


def check_full_shapes(task: Task) -> Tuple[Optional[str], str]:
    """Run at the full preset without computing; compare axes with the small preset."""
    problems: List[str] = []
    full, small = task.dims("full"), task.dims("small")
    for k, v in full.items():
        if v > 1 and small.get(k, v) <= 1:
            problems.append(f"dim {k} is {v} at full but {small[k]} at small")
    try:
        out_full = _shape_only_call(task, "full")
        out_small = _shape_only_call(task, "small")
    except Exception as e:  # noqa: BLE001
        msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return f"{task.path}: shape-only run failed: {type(e).__name__}: {msg}", ""
    fs, ss = tuple(out_full.shape), tuple(out_small.shape)
    if len(fs) != len(ss):
        problems.append(f"output rank {len(fs)} at full but {len(ss)} at small")
    else:
        for a, (f, s) in enumerate(zip(fs, ss)):
            if (f == 1) != (s == 1):
                problems.append(f"output axis {a} is {f} at full but {s} at small")
    elems = {
        "in": sum(math.prod(task.shape(t, "full")) for t in task.spec["inputs"]),
        "par": sum(math.prod(task.shape(t, "full")) for t in task.spec["params"]),
        "out": out_full.numel(),
    }
    info = f"{_fmt_shape(fs):<26} in {elems['in']:.3g}  params {elems['par']:.3g}  out {elems['out']:.3g}"
    if problems:
        return f"{task.path}: " + "; ".join(problems), info
    return None, info


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

def _fmt_shape(shape: Sequence[int]) -> str:
    return "x".join(str(s) for s in shape) if len(shape) else "scalar"


def _fmt_val(v: Optional[float]) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "nan"
    return f"{v:.3g}"


def print_table(results: List[Result], th: Thresholds, out=sys.stdout) -> None:
    hdr = f"{'id':<9} {'out shape':<22} {'s/call':>8}  {'range':<12} {'std':<12} {'axes':<16} {'impact':<12}"
    print(hdr, file=out)
    print("-" * len(hdr), file=out)
    for r in results:
        if r.error:
            print(f"{r.task.id:<9} ERROR {r.error}", file=out)
            continue
        cells = []
        for f in FILTERS:
            v = r.metrics[f]
            mark = "FLAG" if r.flags[f] else "-"
            cell = f"{mark} {_fmt_val(v)}"
            if f == "axes" and r.metrics["axes_axis"] is not None:
                cell += f"@{r.metrics['axes_axis']}"
            cells.append(cell)
        print(f"{r.task.id:<9} {_fmt_shape(r.out_shape):<22} {r.sec_per_call:>8.4f}  "
              f"{cells[0]:<12} {cells[1]:<12} {cells[2]:<16} {cells[3]:<12}", file=out)
    print(f"(metric = max|out| for range, max std for std/impact, min over axes of max std "
          f"for axes, '@a' = that axis, 0 = seeds; FLAG when metric < threshold "
          f"{th.range}/{th.std}/{th.axes}/{th.impact})", file=out)


def result_json(r: Result) -> Dict[str, Any]:
    def clean(v: Any) -> Any:
        if isinstance(v, float) and math.isnan(v):
            return None
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v
    d: Dict[str, Any] = {"id": r.task.id, "file": str(r.task.path)}
    if r.error:
        d["error"] = r.error
        return d
    d.update({
        "out_shape": list(r.out_shape),
        "out_dtype": r.out_dtype,
        "sec_per_call": r.sec_per_call,
        "metrics": {k: clean(v) for k, v in r.metrics.items()},
        "flags": r.flags,
    })
    return d


def main(argv: Optional[Sequence[str]] = None) -> int:
    repo = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite", nargs="?", default=str(repo / "resources" / "suite"),
                    help="suite folder (default: the built-in resources/suite)")
    ap.add_argument("--tasks", metavar="REGEX", help="only task ids matching REGEX (re.search)")
    ap.add_argument("--seeds", type=int, default=5, help="number of seeds S (default 5)")
    ap.add_argument("--first-seed", type=int, default=0, help="seeds are first-seed .. first-seed+S-1")
    ap.add_argument("--preset", default="small", help="dims preset to run (default small)")
    ap.add_argument("--device", default="cpu", help="torch device to run on (default cpu)")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    ap.add_argument("--threshold", type=float, default=0.01, help="threshold t for all four filters")
    ap.add_argument("--full-shapes", action="store_true",
                    help="only check full-preset shapes on the meta device (no computation)")
    ap.add_argument("--validate-only", action="store_true", help="only validate and compile")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args(argv)

    torch.set_num_threads(max(1, args.threads))
    th = Thresholds(args.threshold, args.threshold, args.threshold, args.threshold)
    root = Path(args.suite)
    if not root.is_dir():
        print(f"error: suite folder {root} does not exist", file=sys.stderr)
        return 1
    tasks, errors = load_suite(root, args.tasks)
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    print(f"{len(tasks)} task(s) loaded from {root}" + (f", {len(errors)} error(s)" if errors else ""))
    status = 1 if errors else 0

    if args.validate_only:
        return status

    if args.full_shapes:
        for t in tasks:
            err, info = check_full_shapes(t)
            if err:
                print(f"{t.id:<9} FAIL  {err}")
                status = 1
            else:
                print(f"{t.id:<9} ok    {info}")
        return status

    if args.seeds < 2:
        print("error: --seeds must be at least 2 (unbiased std)", file=sys.stderr)
        return 1
    device = torch.device(args.device)
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    results: List[Result] = []
    for t in tasks:
        r = run_task(t, args.preset, seeds, device, th)
        if r.error:
            print(f"error: {r.error}", file=sys.stderr)
            status = 1
        results.append(r)
    print_table(results, th)

    ok = [r for r in results if not r.error]
    if ok:
        slow = max(ok, key=lambda r: r.sec_per_call)
        print(f"slowest: {slow.task.id} {slow.sec_per_call:.4f} s/call at preset {args.preset}")

    if args.threshold == 0.01 and args.preset == "small":
        for r in ok:
            exp = EXPECTED_FLAGS.get(r.task.id)
            if not exp:
                continue
            bad = {k: r.flags[k] for k, v in exp.items() if r.flags[k] != v}
            if bad:
                print(f"EXPECTATION FAILED {r.task.id}: got {bad}, expected {exp}")
                status = max(status, 2)
            else:
                print(f"expected flags ok: {r.task.id}")

    if args.json:
        Path(args.json).write_text(json.dumps({
            "suite": str(root), "preset": args.preset, "device": str(device), "seeds": seeds,
            "thresholds": th.__dict__, "results": [result_json(r) for r in results],
        }, indent=2) + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
