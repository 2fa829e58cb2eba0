#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Export KernelBench task files to KernelSieve's task format.

Each ``<N>_<Name>.py`` in the folder (a ``class Model(nn.Module)``, ``get_inputs()``,
``get_init_inputs()`` and module-level shape constants) becomes, under ``OUT/<folder name>/``:

- ``<N>_<Name>.json``  the task spec (docs/task-format.md): inputs and parameters with shape,
  dtype and the distribution they are drawn from, the output shape, import notes;
- ``<N>_<Name>.pt``    a traced TorchScript module, ``forward(*inputs, *params)``: the model with
  its parameters made explicit arguments, so the C++ engine re-draws them per seed; buffers
  (BatchNorm running stats, ...) stay inside as constants;
- ``<N>_<Name>.py``    a copy of the original file, shown to the user (never compiled).

How the distributions are found: ``Model(*get_init_inputs())`` and ``get_inputs()`` run under a
``TorchFunctionMode`` that records which generator (randn / rand / randint / *_like / normal_ /
uniform_ / nn.init.*) produced each tensor and the simple steps after it (``* s``, ``+ t``,
``.softmax(d)``, ``.abs()``, dtype casts, reshapes). What it cannot explain is written as
``normal`` (floats, with the measured mean and std) or ``randint`` over the observed range
(integers) with ``"inferred": false``. Parameters of PyTorch's standard modules get PyTorch's
default init for their type (Linear / Conv* / ConvTranspose*: kaiming_uniform, the bias
``fan_in_of`` its weight; norms: weight 1, bias 0) when the recording agrees; otherwise what was
recorded. Inputs are listed in call order, parameters in the order their constructors drew
them, so the engine's seed semantics (seed, inputs in order, then parameters in order, all on
the CPU generator) replay robust-kbench's ``set_seed(s); get_inputs(); Model(*init)``
(docs/task-format.md, "Seed semantics"). The exporter records seed 0 in that order, checks the
replay on the CPU and writes the outcome as ``import.rng_compatible`` (and the order it checked
as ``import.rng_order``; exporters before 1.2 checked ``Model`` first, then ``get_inputs()``).

The model runs in training mode, as KernelBench and robust-kbench run it.

Every file is handled by a worker process (forked once, reused); a file that fails is reported
with the last line of its traceback and does not stop the others; a file that hangs past
``--timeout``, kills its worker or breaks its CUDA context (a device-side assert) is reported and
the worker replaced.

Protocol: one JSON object per line on stdout -- ``{"event": "start", ...}``, one
``{"event": "file", "file": ..., "status": "ok"|"error", ...}`` per file in file order, and
``{"event": "done", ...}``. Messages for people go to stderr. Exit status: 0 the folder was
processed (even if files failed), 2 bad usage, 3 no task files / folder missing, 4 torch is
missing, 5 the output folder cannot be written.

Needs Python 3.8+ and torch (2.x); nothing else.
"""

from __future__ import annotations

import argparse
import fnmatch
import gc
import importlib.util
import inspect
import json
import math
import os
import re
import select
import shutil
import signal
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

sys.dont_write_bytecode = True  # never leave __pycache__ in the user's KernelBench checkout

EXPORTER_VERSION = "1.6"
# The order in which the engine draws a seed's tensors (core/src/engine.cpp, pass 1): every input in
# spec order, then every parameter, as robust-kbench's filters call get_inputs() before Model(...).
# The recording and the seed-0 replay in export_one follow exactly this order. (1.0 and 1.1 wrote
# "params-then-inputs": their check replayed Model(...) first, then get_inputs().)
ENGINE_SEED_ORDER = "inputs-then-params"
ARTIFACT_META = "kernelsieve.json"

try:
    import torch
    import torch.nn as nn
    from torch.overrides import TorchFunctionMode
except ImportError as _e:  # pragma: no cover - depends on the machine
    print(json.dumps({"event": "fatal", "code": 4,
                      "error": f"torch is not importable by {sys.executable} ({_e}); install it with "
                               f"'{sys.executable} -m pip install torch' or pass another --python"}),
          flush=True)
    sys.exit(4)

DTYPE_NAMES = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32", torch.bool: "bool",
}
NAME_DTYPES = {v: k for k, v in DTYPE_NAMES.items()}

# Replaying seed 0 doubles the cost of drawing; above this many elements we skip it (a quarter of it
# on a GPU trace, where the reference is drawn on the CPU once more). KS_IMPORT_CHECK_ELEMENTS sets
# the limit for both: KernelBench's later shapes leave most of level 2 unchecked by default (64 of 100
# files on 2026-12-05), and a user who cites value-by-value agreement can pay for the check.
REPLAY_ELEMENT_LIMIT = 1 << 28


def _check_limit(device: torch.device) -> int:
    v = os.environ.get("KS_IMPORT_CHECK_ELEMENTS", "").strip()
    if v:
        try:
            return max(0, int(float(v)))
        except ValueError:
            raise TaskFileError(f"KS_IMPORT_CHECK_ELEMENTS='{v}' is not a number of elements") from None
    return REPLAY_ELEMENT_LIMIT if device.type == "cpu" else REPLAY_ELEMENT_LIMIT // 4
# Seeds on which the trace is compared with eager PyTorch after tracing (export_task).
FRESH_SEEDS = (1, 2, 3)


class TaskFileError(Exception):
    """A problem with one task file; the message is shown as is."""


# --------------------------------------------------------------------------------------------
# Recording where tensors come from
# --------------------------------------------------------------------------------------------

class Prov:
    """How a tensor was made: a base distribution, transforms after it, or why we cannot tell."""

    __slots__ = ("dist", "post", "origin", "ok", "why", "draw", "before")

    def __init__(self, dist: Optional[Dict[str, Any]], origin: str, ok: bool = True, why: str = "",
                 draw: Optional[int] = None):
        self.dist = dist
        self.post: List[Dict[str, Any]] = []
        self.origin = origin
        self.ok = ok
        self.why = why
        self.draw = draw  # index of the RNG draw this tensor comes from (RecordState.draws)
        # A draw into this tensor that a constant then overwrote (spec "draw_before"): its
        # distribution; `draw` is then that draw's index.
        self.before: Optional[Dict[str, Any]] = None

    def overwrites(self, old: Optional["Prov"]) -> "Prov":
        """This (constant) init replaces `old`. When `old` was one plain draw, the engine must draw
        it too and discard it (nn.MultiheadAttention zeroes out_proj.bias after Linear drew it),
        or every tensor drawn after it shifts."""
        if (old is not None and old.draw is not None and old.ok and old.dist is not None and not old.post
                and old.before is None and self.draw is None):
            self.before = dict(old.dist)
            self.draw = old.draw
            self.origin = f"{self.origin}, over {old.origin}"
        return self

    def derived(self, origin_suffix: str = "") -> "Prov":
        p = Prov(dict(self.dist) if self.dist else None, self.origin + origin_suffix, self.ok, self.why, self.draw)
        p.post = [dict(x) for x in self.post]
        # A clone of a constant that overwrote a draw (copy.deepcopy of nn.MultiheadAttention) still
        # stands on that draw; the first of its copies in the spec says so ("draw_before"), the
        # others are "copy_of" it.
        p.before = dict(self.before) if self.before else None
        return p

    def spoil(self, why: str) -> "Prov":
        if self.ok:
            self.ok = False
            self.why = why
        return self

    def add_affine(self, scale: float, shift: float) -> None:
        # Steps merge only when the engine's x.mul(scale).add(shift) then does the same float ops
        # (a multiply followed by an add); (x * 2 - 1) * 3 is not x * 6 - 3 bit for bit.
        last = self.post[-1] if self.post else None
        if last is not None and last["op"] == "affine" and last["shift"] == 0.0 and scale == 1.0:
            last["shift"] = float(shift)
        else:
            self.post.append({"op": "affine", "scale": float(scale), "shift": float(shift)})


def _key(t: torch.Tensor) -> Tuple:
    # Parameters wrap the tensor they were made from (same storage, shape and strides), and
    # in-place initialisers keep all of these, so this key follows a tensor through both.
    return (t.data_ptr(), t.dtype, tuple(t.shape), tuple(t.stride()), t.device.type)


def _transpose_pair(args: Sequence[Any]) -> bool:
    """True when args are (x, x.T): the second a view of the first with its last two dims
    swapped, as in `A + A.T` or `A @ A.T`."""
    if len(args) != 2 or not all(isinstance(a, torch.Tensor) for a in args):
        return False
    a, b = args
    if a.dim() < 2 or a.data_ptr() != b.data_ptr() or a.dim() != b.dim():
        return False
    swap = lambda v: tuple(v[:-2]) + (v[-1], v[-2])  # noqa: E731
    return tuple(b.shape) == swap(tuple(a.shape)) and tuple(b.stride()) == swap(tuple(a.stride()))


def _is_scalar(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _scalar_of(state: "RecordState", v: Any) -> Optional[float]:
    """A number, or a 0-dim floating tensor that was not drawn (torch.distributions keeps its
    parameters as such: Pareto's `scale * x`, Exponential's `x / rate`), as the float it holds; a
    float tensor times a 0-dim float tensor computes in the tensor's dtype, as with a Python number
    (the seed-0 replay checks it bit for bit). None for anything else."""
    if _is_scalar(v):
        return float(v)
    if (isinstance(v, torch.Tensor) and v.dim() == 0 and v.dtype.is_floating_point and state.get(v) is None
            and not v.requires_grad):
        return float(v.item())
    return None


def _size_arg(args: Sequence[Any], kwargs: Dict[str, Any]) -> Optional[List[int]]:
    if "size" in kwargs:
        return list(kwargs["size"])
    if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
        return list(args[0])
    if all(isinstance(a, int) for a in args):
        return list(args)
    return None


def _fmt_call(name: str, args: Sequence[Any], kwargs: Dict[str, Any]) -> str:
    def f(v: Any) -> str:
        if isinstance(v, torch.Tensor):
            return "<tensor " + "x".join(str(s) for s in v.shape) + ">"
        if isinstance(v, torch.dtype):
            return str(v)
        if isinstance(v, torch.Size):
            return str(tuple(v))
        return repr(v)
    parts = [f(a) for a in args] + [f"{k}={f(v)}" for k, v in kwargs.items() if k not in ("device", "generator")]
    return f"{name}({', '.join(parts)})"


_GENERATORS = {"randn", "rand", "randint", "randn_like", "rand_like", "randint_like", "normal"}
_INPLACE_DRAWS = {"uniform_", "normal_", "exponential_"}
_RNG_OTHER = {"bernoulli", "bernoulli_", "multinomial", "randperm", "random_",
              "geometric_", "cauchy_", "log_normal_", "poisson", "dropout", "rrelu"}
_CONSTANTS = {"ones", "zeros", "full", "ones_like", "zeros_like", "full_like"}
# Draws the engine can make again (and discard) at a tensor's shape: what a generator consumes
# depends on the distribution's kind, the size and the dtype (float32; randint int64), not on its
# numbers, but the replay uses the very same call anyway.
_DISCARDABLE = {"normal", "uniform", "randint", "exponential"}
_IDENTITY = {"contiguous", "clone", "detach", "detach_", "requires_grad_", "cpu", "cuda",
             "__get__", "numel", "size", "dim", "__len__", "__format__", "__repr__", "item"}
_RESHAPE = {"view", "reshape", "unsqueeze", "squeeze", "flatten", "view_as", "reshape_as"}
_CASTS = {"float": torch.float32, "double": torch.float64, "half": torch.float16,
          "bfloat16": torch.bfloat16, "long": torch.int64, "int": torch.int32, "bool": torch.bool}


class RecordState:
    def __init__(self) -> None:
        self.prov: Dict[Tuple, Prov] = {}
        self.keep: List[torch.Tensor] = []  # keeps recorded tensors alive so keys stay unique
        self.draws: List[str] = []  # every RNG draw, in order (what made it)
        # Per draw, what the engine needs to make the same draw and throw it away (spec
        # "discard_before"): {"shape", "init"}, or None where it cannot.
        self.replays: List[Optional[Dict[str, Any]]] = []

    def draw(self, origin: str, dist: Optional[Dict[str, Any]] = None, t: Any = None) -> int:
        self.draws.append(origin)
        replay = None
        if (dist is not None and isinstance(t, torch.Tensor) and dist.get("dist") in _DISCARDABLE
                and t.dtype == (torch.int64 if dist["dist"] == "randint" else torch.float32)):
            replay = {"shape": [int(d) for d in t.shape], "init": dict(dist), "key": _key(t)}
        self.replays.append(replay)
        return len(self.draws) - 1

    def set(self, t: torch.Tensor, p: Prov) -> None:
        self.prov[_key(t)] = p
        self.keep.append(t)

    def get(self, t: Any) -> Optional[Prov]:
        if isinstance(t, torch.Tensor):
            return self.prov.get(_key(t))
        return None


_FACTORIES = {"randn", "rand", "randint", "normal", "zeros", "ones", "full", "empty", "arange", "linspace",
              "logspace", "eye", "tensor", "as_tensor", "randperm", "empty_strided", "scalar_tensor"}


class Recorder(TorchFunctionMode):
    """Records generators and simple post-ops. Tensors are made on `device` whatever the file
    asks for (the engine owns devices): the CPU for the model, the tracing device for inputs, where
    drawing a few GB takes milliseconds instead of seconds."""

    def __init__(self, state: RecordState, device: Optional[torch.device] = None):
        super().__init__()
        self.s = state
        self.device = device or torch.device("cpu")

    def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: C901 - a dispatch table
        kwargs = dict(kwargs or {})
        name = getattr(func, "__name__", "")
        module = getattr(func, "__module__", "") or ""
        kwargs.pop("device", None)
        if name in _FACTORIES and module.startswith("torch") and self.device.type != "cpu":
            kwargs["device"] = self.device
        if name == "cuda" and args and isinstance(args[0], torch.Tensor):
            return args[0]
        if name == "to" and args and isinstance(args[0], torch.Tensor):
            rest = [a for a in args[1:] if not isinstance(a, (str, torch.device))]
            kwargs.pop("non_blocking", None)
            if not rest and not kwargs:
                return args[0]
            args = (args[0], *rest)
        out = func(*args, **kwargs)
        if module == "torch.nn.init":
            # Initialisers dispatch here as a whole (the uniform_/normal_ inside them do not).
            try:
                self._init_function(name, args, kwargs)
            except Exception:  # noqa: BLE001
                pass
            return out
        try:
            self._record(name, args, kwargs, out)
        except Exception:  # noqa: BLE001 - bookkeeping must never break the task
            pass
        return out

    def _record(self, name: str, args: Sequence[Any], kwargs: Dict[str, Any], out: Any) -> None:
        s = self.s
        first = args[0] if args else None
        tracked_in = [a for a in list(args) + list(kwargs.values()) if s.get(a) is not None]
        if name in _GENERATORS and isinstance(out, torch.Tensor):
            dist = self._generator(name, args, kwargs)
            origin = _fmt_call("torch." + name, args, kwargs)
            p = Prov(dist, origin, ok=dist is not None,
                     why="" if dist is not None else f"unsupported arguments to torch.{name}",
                     draw=s.draw(origin, dist, out))
            s.set(out, p)
            return
        if name in _INPLACE_DRAWS and isinstance(first, torch.Tensor):
            lo = args[1] if len(args) > 1 else kwargs.get("from", kwargs.get("mean", 0.0))
            hi = args[2] if len(args) > 2 else kwargs.get("to", kwargs.get("std", 1.0))
            if name == "uniform_":
                dist = {"dist": "uniform", "low": float(lo), "high": float(hi), "inplace": True}
            elif name == "exponential_":  # torch.distributions' Exponential, Pareto, ... sample this way
                lambd = args[1] if len(args) > 1 else kwargs.get("lambd", 1.0)
                dist = {"dist": "exponential", "lambd": float(lambd)} if _is_scalar(lambd) and lambd > 0 else None
            else:
                dist = {"dist": "normal", "mean": float(lo), "std": float(hi), "inplace": True}
            origin = _fmt_call("." + name, args[1:], kwargs)
            s.set(first, Prov(dist, origin, ok=dist is not None, why="" if dist is not None else
                              f"unsupported arguments to .{name}", draw=s.draw(origin, dist, first)))
            return
        if name in _RNG_OTHER:
            if isinstance(out, torch.Tensor):
                s.set(out, Prov(None, name, ok=False, why=f"drawn by {name}, which the task format cannot express",
                                draw=s.draw(name)))
            else:
                s.draw(name)
            return
        if name in ("zero_", "fill_") and isinstance(first, torch.Tensor):
            v = 0.0 if name == "zero_" else args[1] if len(args) > 1 else kwargs.get("value")
            if _is_scalar(v) or isinstance(v, bool):
                s.set(first, Prov({"dist": "constant", "value": float(v)}, f".{name}({v!r})").overwrites(s.get(first)))
            else:
                s.set(first, Prov(None, name, ok=False, why=f"filled from a tensor by {name}"))
            return
        if name in _CONSTANTS and isinstance(out, torch.Tensor):
            v = 1.0 if name.startswith("ones") else 0.0 if name.startswith("zeros") else (
                kwargs.get("fill_value", args[-1] if args else None))
            if _is_scalar(v) or isinstance(v, bool):
                s.set(out, Prov({"dist": "constant", "value": float(v)}, _fmt_call("torch." + name, args, kwargs)))
            return
        if not tracked_in:
            return
        src = s.get(first) if s.get(first) is not None else s.get(tracked_in[0])
        if not isinstance(out, torch.Tensor):
            return
        inplace = name.endswith("_") and not name.startswith("__") and out is first
        p = src if inplace else src.derived()
        pair = _transpose_pair(args)
        if pair and name in ("add", "__add__", "__radd__") and s.get(first) is src and not kwargs:
            p.post.append({"op": "add_transpose"})
            p.origin = f"({p.origin}) + ({p.origin}).T"
        elif pair and name in ("matmul", "__matmul__", "mm") and s.get(first) is src and not kwargs:
            p.post.append({"op": "matmul_transpose"})
            p.origin = f"({p.origin}) @ ({p.origin}).T"
        elif len(tracked_in) > 1:
            p.spoil(f"combines several random tensors ({name})")
        elif name in ("t", "transpose", "mT", "T", "permute", "movedim", "swapaxes") or (
                name == "__get__" and out.data_ptr() == first.data_ptr() and out.stride() != first.stride()):
            p.spoil(f"a transposed view ({name}) of what was drawn, which the task format cannot express")
        elif name in _IDENTITY:
            pass
        elif name in _CASTS or name in ("to", "type"):
            pass  # the final dtype is read from the tensor itself
        elif name in _RESHAPE:
            if any(x["op"] in ("softmax", "log_softmax") for x in p.post):
                p.spoil(f"{name} after a softmax over a given dim")
            p.origin += f".{name}(...)"
        elif name in ("mul", "__mul__", "__rmul__", "multiply", "mul_", "__imul__"):
            other = _scalar_of(s, args[1] if first is not None and s.get(first) is src else args[0])
            if other is not None:
                p.add_affine(other, 0.0)
                p.origin += f" * {other!r}"
            else:
                p.spoil(f"multiplied by a tensor ({name})")
        elif name in ("add", "__add__", "__radd__", "add_", "__iadd__", "sub", "__sub__", "sub_", "__isub__",
                      "subtract"):
            other = _scalar_of(s, args[1] if len(args) > 1 else kwargs.get("other"))
            alpha = kwargs.get("alpha", 1)
            if other is not None and _is_scalar(alpha) and s.get(first) is src:
                sign = -1.0 if "sub" in name else 1.0
                p.add_affine(1.0, sign * other * alpha)
                p.origin += f" {'-' if sign < 0 else '+'} {other!r}"
            else:
                p.spoil(f"combined with a tensor ({name})")
        elif name == "__rsub__":
            other = _scalar_of(s, args[1] if len(args) > 1 else None)
            if other is not None:
                p.add_affine(-1.0, other)
                p.origin = f"{other!r} - ({p.origin})"
            else:
                p.spoil("subtracted from a tensor")
        elif name in ("div", "__truediv__", "div_", "__itruediv__", "true_divide"):
            other = _scalar_of(s, args[1] if len(args) > 1 else kwargs.get("other"))
            if other is not None and other != 0 and "rounding_mode" not in kwargs and s.get(first) is src:
                p.post.append({"op": "div", "value": other})  # x / 3 is not x * (1/3) bit for bit
                p.origin += f" / {other!r}"
            else:
                p.spoil(f"divided ({name})")
        elif name in ("neg", "__neg__", "negative"):
            p.add_affine(-1.0, 0.0)
            p.origin = f"-({p.origin})"
        elif name in ("abs", "abs_", "__abs__"):
            p.post.append({"op": "abs"})
            p.origin += ".abs()"
        elif name in ("exp", "exp_"):
            p.post.append({"op": "exp"})
            p.origin = f"torch.exp({p.origin})"
        elif name in ("triu", "tril", "triu_", "tril_"):
            diag = args[1] if len(args) > 1 else kwargs.get("diagonal", 0)
            if isinstance(diag, int):
                p.post.append({"op": name.rstrip("_"), "diagonal": diag})
                p.origin = f"torch.{name.rstrip('_')}({p.origin}, {diag})"
            else:
                p.spoil(f"{name} with a diagonal that is not a number")
        elif name in ("softmax", "log_softmax"):
            dim = args[1] if len(args) > 1 else kwargs.get("dim")
            if isinstance(dim, int):
                p.post.append({"op": name, "dim": dim})
                p.origin += f".{name}(dim={dim})"
            else:
                p.spoil(f"{name} without an explicit dim")
        else:
            p.spoil(f"transformed by {name}, which the task format cannot express")
        if inplace:
            return
        s.set(out, p)

    def _init_function(self, name: str, args: Sequence[Any], kwargs: Dict[str, Any]) -> None:
        """What a torch.nn.init function did to its tensor, recomputed from its arguments."""
        from torch.nn import init
        t = args[0] if args else kwargs.get("tensor")
        if not isinstance(t, torch.Tensor):
            return
        s = self.s

        def arg(i: int, key: str, default: Any) -> Any:
            return args[i] if len(args) > i else kwargs.get(key, default)
        origin = _fmt_call("nn.init." + name, args[1:], kwargs)
        dist: Optional[Dict[str, Any]] = None
        random = True
        if name == "kaiming_uniform_":
            gain = init.calculate_gain(arg(3, "nonlinearity", "leaky_relu"), arg(1, "a", 0))
            # torch/nn/init.py's own arithmetic, so the bound is the same double it passes to uniform_
            std = gain / math.sqrt(init._calculate_correct_fan(t, arg(2, "mode", "fan_in")))
            bound = math.sqrt(3.0) * std
            dist = {"dist": "uniform", "low": -bound, "high": bound, "inplace": True}
        elif name == "kaiming_normal_":
            gain = init.calculate_gain(arg(3, "nonlinearity", "leaky_relu"), arg(1, "a", 0))
            dist = {"dist": "normal", "std": gain / math.sqrt(init._calculate_correct_fan(t, arg(2, "mode", "fan_in"))),
                    "inplace": True}
        elif name in ("xavier_uniform_", "xavier_normal_"):
            fan_in, fan_out = init._calculate_fan_in_and_fan_out(t)
            gain = arg(1, "gain", 1.0)
            if name == "xavier_uniform_":
                std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
                a = math.sqrt(3.0) * std
                dist = {"dist": "uniform", "low": -a, "high": a, "inplace": True}
            else:
                dist = {"dist": "normal", "std": gain * math.sqrt(2.0 / float(fan_in + fan_out)), "inplace": True}
        elif name == "uniform_":
            dist = {"dist": "uniform", "low": float(arg(1, "a", 0.0)), "high": float(arg(2, "b", 1.0)), "inplace": True}
        elif name == "normal_":
            dist = {"dist": "normal", "mean": float(arg(1, "mean", 0.0)), "std": float(arg(2, "std", 1.0)),
                    "inplace": True}
        elif name in ("constant_", "ones_", "zeros_"):
            v = 1.0 if name == "ones_" else 0.0 if name == "zeros_" else arg(1, "val", None)
            random = False
            if _is_scalar(v):
                dist = {"dist": "constant", "value": float(v)}
        elif name in ("calculate_gain",) or not name.endswith("_"):
            return
        if dist is not None:
            p = Prov(dist, origin, draw=s.draw(origin, dist, t) if random else None)
            s.set(t, p if random else p.overwrites(s.get(t)))
        else:
            s.set(t, Prov(None, origin, ok=False, why=f"initialised by nn.init.{name}, which the task format cannot "
                                                      f"express", draw=s.draw(origin) if random else None))

    @staticmethod
    def _generator(name: str, args: Sequence[Any], kwargs: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        if kwargs.get("generator") is not None:
            return None
        if name in ("randn", "randn_like"):
            return {"dist": "normal"}
        if name in ("rand", "rand_like"):
            return {"dist": "uniform"}
        if name == "normal":
            mean = args[0] if args else kwargs.get("mean", 0.0)
            std = args[1] if len(args) > 1 else kwargs.get("std", 1.0)
            if _is_scalar(mean) and _is_scalar(std):
                return {"dist": "normal", "mean": float(mean), "std": float(std), "inplace": True}
            return None
        if name in ("randint", "randint_like"):
            ints = [a for a in (args[1:] if name == "randint_like" else args) if isinstance(a, int)]
            if name == "randint" and ints and len(ints) == len(args):
                ints = ints[:-1]  # randint(high, size...) is not a form torch accepts; be safe
            low, high = (0, ints[0]) if len(ints) == 1 else (ints[0], ints[1]) if len(ints) >= 2 else (0, None)
            low = kwargs.get("low", low)
            high = kwargs.get("high", high)
            if high is None:
                return None
            return {"dist": "randint", "low": int(low), "high": int(high)}
        return None


# --------------------------------------------------------------------------------------------
# Drawing with the engine's semantics (mirror of core/src/torchtask.cpp drawTensor)
# --------------------------------------------------------------------------------------------

def _fan_in(shape: Sequence[int]) -> int:
    return int(shape[1]) * int(math.prod(shape[2:])) if len(shape) >= 2 else 0


def kaiming_bound(init: Dict[str, Any], fan: float) -> float:
    """The bound PyTorch passes to uniform_, computed as torch/nn/init.py does (same double)."""
    if "a" in init:
        gain = math.sqrt(2.0 / (1 + init["a"] ** 2))
        return math.sqrt(3.0) * (gain / math.sqrt(fan))
    return 1.0 / math.sqrt(fan)


def draw_engine_params(specs: List[Dict[str, Any]], all_specs: Dict[str, Dict[str, Any]]) -> List[torch.Tensor]:
    """The parameters as the engine draws them, in order: a ``copy_of`` parameter is not drawn but
    copies the earlier one it names (core/src/torchtask.cpp, drawParams)."""
    out: List[torch.Tensor] = []
    drawn: Dict[str, torch.Tensor] = {}
    for s in specs:
        t = drawn[s["copy_of"]].clone() if "copy_of" in s else draw_engine(s, all_specs)
        drawn[s["name"]] = t
        out.append(t)
    return out


def draw_engine(ts: Dict[str, Any], all_specs: Dict[str, Dict[str, Any]]) -> torch.Tensor:
    for d in ts.get("discard_before", []):  # draws the original made and no tensor kept
        draw_engine({"_shape": d["shape"], "dtype": "int64" if d["init"]["dist"] == "randint" else "float32",
                     "init": d["init"]}, all_specs)
    if "draw_before" in ts:  # drawn and discarded, as the original overwrote it
        draw_engine({"_shape": ts["_shape"], "dtype": "float32", "init": ts["draw_before"]}, all_specs)
    shape = ts["_shape"]
    init = ts["init"]
    dist = init["dist"]
    f32 = torch.float32
    if dist == "normal" and init.get("inplace"):
        t = torch.empty(shape, dtype=f32).normal_(init.get("mean", 0.0), init.get("std", 1.0))
    elif dist == "uniform" and init.get("inplace"):
        t = torch.empty(shape, dtype=f32).uniform_(init.get("low", 0.0), init.get("high", 1.0))
    elif dist == "normal":
        t = torch.randn(shape, dtype=f32)
        if init.get("std", 1.0) != 1.0:
            t.mul_(init["std"])
        if init.get("mean", 0.0) != 0.0:
            t.add_(init["mean"])
    elif dist == "uniform":
        lo, hi = init.get("low", 0.0), init.get("high", 1.0)
        t = torch.rand(shape, dtype=f32)
        if hi - lo != 1.0:
            t.mul_(hi - lo)
        if lo != 0.0:
            t.add_(lo)
    elif dist == "randint":
        t = torch.randint(int(init.get("low", 0)), int(init["high"]), shape, dtype=torch.int64)
    elif dist == "kaiming_uniform":
        if "fan_in" in init:
            fan = init["fan_in"]
        elif "fan_in_of" in init:
            fan = _fan_in(all_specs[init["fan_in_of"]]["_shape"])
        else:
            fan = _fan_in(shape)
        bound = kaiming_bound(init, fan)
        t = torch.empty(shape, dtype=f32).uniform_(-bound, bound)
    elif dist == "constant":
        t = torch.full(shape, float(init["value"]), dtype=f32)
    elif dist == "exponential":
        t = torch.empty(shape, dtype=f32).exponential_(init.get("lambd", 1.0))
    else:
        raise AssertionError(dist)
    for p in ts.get("post", []):
        if not t.dtype.is_floating_point:
            t = t.to(f32)
        if p["op"] == "softmax":
            t = t.softmax(p.get("dim", -1))
        elif p["op"] == "log_softmax":
            t = t.log_softmax(p.get("dim", -1))
        elif p["op"] == "abs":
            t = t.abs()
        elif p["op"] == "affine":
            t = t.mul(p.get("scale", 1.0)).add(p.get("shift", 0.0))
        elif p["op"] in ("triu", "tril"):
            t = getattr(t, p["op"])(p.get("diagonal", 0))
        elif p["op"] == "add_transpose":
            t = t.add(t.mT)
        elif p["op"] == "matmul_transpose":
            t = t.matmul(t.mT)
        elif p["op"] == "exp":
            t = t.exp()
        elif p["op"] == "div":
            t = t.div(p["value"])
        else:
            raise AssertionError(p["op"])
    return t.to(NAME_DTYPES[ts["dtype"]])


# --------------------------------------------------------------------------------------------
# Specs from recordings
# --------------------------------------------------------------------------------------------

def _round_sig(v: float, digits: int = 2) -> float:
    if v == 0 or not math.isfinite(v):
        return 0.0
    return round(v, digits - 1 - int(math.floor(math.log10(abs(v)))))


def _empirical(t: torch.Tensor, why: str, drawn: bool) -> Tuple[Dict[str, Any], List[Dict[str, Any]], bool, str]:
    """Fallback: normal with the measured moments for floats, randint over the observed range for
    integers and bools; a constant for floats of one value that no random draw made (`drawn`
    false). The third element says whether the result replays the tensor exactly."""
    if t.dtype == torch.bool:
        return {"dist": "randint", "low": 0, "high": 2}, [], False, why
    if not t.dtype.is_floating_point:
        lo, hi = (int(t.min()), int(t.max()) + 1) if t.numel() else (0, 1)
        return {"dist": "randint", "low": lo, "high": max(hi, lo + 1)}, [], False, why
    x = t.detach().double()
    if not drawn and x.numel() and bool(torch.isfinite(x).all()) and bool((x == x.reshape(-1)[0]).all()):
        # One value throughout, computed without random numbers (`torch.log(10 * torch.ones(h))`,
        # a Swin logit scale): a constant replays it exactly, and a fitted normal would draw
        # numbers the original never drew, shifting every draw after it.
        v = float(x.reshape(-1)[0])
        return {"dist": "constant", "value": v}, [], True, why + f"; every element is {v:.17g}: written as that constant"
    mean = float(x.mean()) if x.numel() else 0.0
    std = float(x.std()) if x.numel() > 1 else 0.0
    d: Dict[str, Any] = {"dist": "normal"}
    if abs(mean) > 1e-3 * max(std, 1e-12) and abs(mean) > 1e-6:
        d["mean"] = _round_sig(mean)
    d["std"] = _round_sig(std) if std > 0 else 0.0
    return d, [], False, why + f"; written as normal with the measured mean {mean:.3g} and std {std:.3g}"


def _simplify(dist: Dict[str, Any], post: List[Dict[str, Any]]) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """Fold `randn * s + t` / `rand * s + t` into the distribution when the engine then draws the
    same numbers (s > 0, as the engine multiplies then adds)."""
    dist, post = dict(dist), [dict(p) for p in post]
    if len(post) == 1 and post[0]["op"] == "affine" and not dist.get("inplace"):
        s, t = post[0]["scale"], post[0]["shift"]
        if dist["dist"] == "normal" and s > 0 and dist.get("mean", 0.0) == 0.0 and dist.get("std", 1.0) == 1.0:
            dist = {"dist": "normal", "mean": t, "std": s}
            post = []
        elif dist["dist"] == "uniform" and s > 0 and dist.get("low", 0.0) == 0.0 and dist.get("high", 1.0) == 1.0 \
                and (t + s) - t == s:
            dist = {"dist": "uniform", "low": t, "high": t + s}
            post = []
    if dist["dist"] == "normal":
        if dist.get("mean", 0.0) == 0.0:
            dist.pop("mean", None)
        if dist.get("std", 1.0) == 1.0:
            dist.pop("std", None)
    if dist.get("inplace") and dist["dist"] == "normal" and "mean" not in dist and "std" not in dist:
        dist.pop("inplace")  # normal_(0, 1) is randn: the same kernel and arguments
    if dist["dist"] == "uniform":
        if dist.get("low", 0.0) == 0.0:
            dist.pop("low", None)
        if dist.get("high", 1.0) == 1.0:
            dist.pop("high", None)
    return dist, post


def tensor_spec(name: str, t: torch.Tensor, prov: Optional[Prov], what: str) -> Dict[str, Any]:
    if t.dtype not in DTYPE_NAMES:
        raise TaskFileError(f"{what} '{name}' has dtype {t.dtype}, which KernelSieve does not draw "
                            f"(supported: {', '.join(DTYPE_NAMES.values())})")
    spec: Dict[str, Any] = {"name": name, "shape": list(t.shape), "dtype": DTYPE_NAMES[t.dtype]}
    if prov is not None and prov.ok and prov.dist is not None:
        dist, post = _simplify(prov.dist, prov.post)
        spec["init"] = dist
        if post:
            spec["post"] = post
        if prov.before is not None:
            spec["draw_before"] = _simplify(prov.before, [])[0]
        spec["inferred"] = True
        spec["origin"] = prov.origin
        if dist["dist"] == "constant" and not t.dtype.is_floating_point and dist["value"] != int(dist["value"]):
            spec["inferred"] = False
    else:
        why = (prov.why if prov is not None and prov.why else
               "not made by a recognised generator (randn, rand, randint, normal_, uniform_, ...)")
        dist, post, ok, note = _empirical(t, why, prov is not None and prov.draw is not None)
        spec["init"] = dist
        spec["inferred"] = ok
        spec["note"] = note
        if not ok:
            spec["approximated"] = note
        if prov is not None:
            spec["origin"] = prov.origin
    return spec


def default_init(module: nn.Module, pname: str, prefix: str, p: torch.Tensor) -> Optional[Dict[str, Any]]:
    """PyTorch's default init for a parameter of a standard module type, as a task-format
    distribution (None when the type is not one we know)."""
    conv = (nn.Linear, nn.modules.conv._ConvNd)
    norms = (nn.modules.batchnorm._NormBase, nn.LayerNorm, nn.GroupNorm)
    if hasattr(nn, "RMSNorm"):
        norms = norms + (nn.RMSNorm,)
    if isinstance(module, conv) and not isinstance(module, nn.modules.lazy.LazyModuleMixin):
        if pname == "weight" and p.dim() >= 2:
            # reset_parameters: kaiming_uniform_(weight, a=math.sqrt(5)); the bias: 1 / sqrt(fan_in)
            return {"dist": "kaiming_uniform", "a": math.sqrt(5)}
        if pname == "bias":
            return {"dist": "kaiming_uniform", "fan_in_of": prefix + "weight"}
    if isinstance(module, nn.Bilinear):
        return {"dist": "kaiming_uniform", "fan_in": int(module.weight.shape[1])}
    if isinstance(module, norms):
        if pname == "weight":
            return {"dist": "constant", "value": 1.0}
        if pname == "bias":
            return {"dist": "constant", "value": 0.0}
    if isinstance(module, nn.Embedding) and pname == "weight":
        return {"dist": "normal"}
    if isinstance(module, nn.PReLU) and pname == "weight":
        return {"dist": "constant", "value": float(module.weight.detach().flatten()[0])}
    if isinstance(module, nn.RNNBase):
        return {"dist": "kaiming_uniform", "fan_in": int(module.hidden_size)}
    return None


def _matches(rule: Dict[str, Any], observed: Dict[str, Any], shape: Sequence[int],
             shapes: Dict[str, Sequence[int]]) -> bool:
    if rule["dist"] == "kaiming_uniform":
        if observed.get("dist") != "uniform":
            return False
        if "fan_in" in rule:
            fan = rule["fan_in"]
        elif "fan_in_of" in rule:
            fan = _fan_in(shapes.get(rule["fan_in_of"], ()))
        else:
            fan = _fan_in(shape)
        if fan <= 0:
            return False
        # Exact: the rule must replay the same uniform_(-b, b) call, not a nearby one.
        b = kaiming_bound(rule, fan)
        return bool(observed.get("inplace")) and observed.get("high", 1.0) == b and observed.get("low", 0.0) == -b
    if rule["dist"] == "constant":
        return observed.get("dist") == "constant" and observed.get("value") == rule["value"]
    if rule["dist"] == "normal":
        return observed.get("dist") == "normal" and observed.get("mean", 0.0) == 0.0 and \
            observed.get("std", 1.0) == 1.0 and not observed.get("inplace")
    return False


# --------------------------------------------------------------------------------------------
# One file
# --------------------------------------------------------------------------------------------

def level_of(folder: Path) -> int:
    m = re.search(r"level[_\- ]?(\d+)", folder.name, re.IGNORECASE)
    return int(m.group(1)) if m else 0


def task_identity(path: Path, level: int) -> Tuple[str, int, str]:
    stem = path.stem
    m = re.match(r"(\d+)_", stem)
    number = int(m.group(1)) if m else 0
    prefix = f"L{level}" if level > 0 else "KB"
    tid = f"{prefix}-{number}" if number else f"{prefix}-{re.sub(r'[^A-Za-z0-9_.-]', '_', stem)}"
    return tid, number, stem


_CATEGORY_RULES = [
    ("loss", r"loss"),
    ("convolution", r"conv"),
    ("matmul", r"matmul|gemm|matrix|_mm_|bmm|einsum|gemv"),
    ("normalization", r"norm"),
    ("pooling", r"pool"),
    ("scan", r"cumsum|cumprod|scan|cumulative"),
    ("activation", r"relu|gelu|sigmoid|tanh|softmax|softplus|softsign|selu|elu|swish|hardtanh|"
                   r"hardsigmoid|mish|silu|logsigmoid"),
    ("reduction", r"sum|mean|max|min|argmax|argmin|prod|reduc"),
]


def category_of(stem: str, level: int) -> str:
    if level == 2:
        return "fusion"
    if level == 3:
        return "model"
    low = stem.lower()
    for cat, pattern in _CATEGORY_RULES:
        if re.search(pattern, low):
            return cat
    return "elementwise"


def load_task_module(path: Path, uid: str):
    spec = importlib.util.spec_from_file_location(f"_ks_kernelbench_{uid}", str(path))
    if spec is None or spec.loader is None:
        raise TaskFileError("cannot be imported as a Python module")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(mod, name):
            raise TaskFileError(f"defines no '{name}' (a KernelBench task file defines class Model, "
                                f"get_inputs() and get_init_inputs())")
    return mod


def _jsonable(v: Any) -> Any:
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else repr(v)
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, torch.Tensor):
        return f"<tensor {DTYPE_NAMES.get(v.dtype, str(v.dtype))} {list(v.shape)}>"
    return repr(v)


def _input_names(model: nn.Module, n: int) -> List[str]:
    names: List[str] = []
    try:
        sig = inspect.signature(model.forward)
        for p in sig.parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                names.append(p.name)
            elif p.kind == p.VAR_POSITIONAL:
                break
    except (TypeError, ValueError):
        pass
    out = []
    for i in range(n):
        out.append(names[i] if i < len(names) else f"x{i}")
    return out


def _dims_and_shapes(names: Dict[str, Any], specs: List[Dict[str, Any]]) -> Dict[str, int]:
    """Name shape entries after the file's module-level int constants (`names`) where the value
    is unambiguous (exactly one constant has it); keeps the others literal."""
    consts: Dict[int, List[str]] = {}
    for k, v in names.items():
        if type(v) is int and not k.startswith("_") and v > 1:
            consts.setdefault(v, []).append(k)
    dims: Dict[str, int] = {}
    for s in specs:
        s["_shape"] = list(s["shape"])
        named = []
        for size in s["shape"]:
            names = consts.get(size, [])
            if len(names) == 1:
                dims[names[0]] = size
                named.append(names[0])
            else:
                named.append(size)
        s["shape"] = named
    return dims


def _tensor_slots(model: nn.Module):
    """Every place a module holds a tensor: (full name, module, attribute, kind, tensor) for its
    parameters, its buffers and its plain tensor attributes (``self.h0 = torch.randn(...)``, which
    ``nn.Module`` keeps in ``__dict__``), shared modules listed once per path."""
    for mname, m in model.named_modules(remove_duplicate=False):
        prefix = f"{mname}." if mname else ""
        for a, t in m._parameters.items():
            if t is not None:
                yield prefix + a, m, a, "param", t
        for a, t in m._buffers.items():
            if t is not None:
                yield prefix + a, m, a, "buffer", t
        for a, t in vars(m).items():
            if isinstance(t, torch.Tensor) and not isinstance(t, nn.Parameter):
                yield prefix + a, m, a, "attr", t


def _get_slot(m: nn.Module, a: str, kind: str) -> Any:
    return m._parameters[a] if kind == "param" else m._buffers[a] if kind == "buffer" else vars(m)[a]


def _set_slot(m: nn.Module, a: str, kind: str, t: Any) -> None:
    # Straight into the module's dictionaries: nn.Module.__setattr__ would refuse a plain tensor
    # for a parameter's name.
    if kind == "param":
        m._parameters[a] = t
    elif kind == "buffer":
        m._buffers[a] = t
    else:
        vars(m)[a] = t


class _Functional(nn.Module):
    """forward(*inputs, *params): the model with its parameters (and the other tensors the spec
    lists as parameters) swapped in for the call."""

    def __init__(self, model: nn.Module, slots: List[List[Tuple[nn.Module, str, str]]], n_inputs: int,
                 baked: Dict[int, Any], forward_kwargs: Optional[Dict[str, Any]] = None):
        super().__init__()
        self.model = model
        self._slots = slots
        self._n = n_inputs
        self._baked = baked
        self._kwargs = dict(forward_kwargs or {})
        self.last_output: Any = None

    def forward(self, *args):
        tensors = list(args[: self._n])
        call: List[Any] = []
        it = iter(tensors)
        for i in range(self._n + len(self._baked)):
            call.append(self._baked[i] if i in self._baked else next(it))
        saved = []
        for where, t in zip(self._slots, args[self._n:]):
            for m, a, kind in where:
                saved.append((m, a, kind, _get_slot(m, a, kind)))
                _set_slot(m, a, kind, t)
        try:
            out = self.model(*call, **self._kwargs)
        finally:
            # Also undoes a forward that reassigns its state (``self.h0 = self.h0.to(x.device)``).
            for m, a, kind, old in reversed(saved):
                _set_slot(m, a, kind, old)
        self.last_output = out
        return out


class _RandomOps(TorchFunctionMode):
    """Counts the random ops a forward runs (dropout, rand, bernoulli, ...), in order."""

    def __init__(self) -> None:
        super().__init__()
        self.names: List[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if (name in _GENERATORS or name in _INPLACE_DRAWS or name in _RNG_OTHER) and _draws(name, args, kwargs or {}):
            self.names.append(name)
        return func(*args, **(kwargs or {}))


def _draws(name: str, args: Sequence[Any], kwargs: Dict[str, Any]) -> bool:
    """Whether a call of a random op draws random numbers: dropout (F.dropout(x, p, training) and
    the aten op under it) with p = 0 or outside training returns its input and leaves the
    generators alone, as the Dropout(p=0.0) layers of many models do."""
    if name in ("dropout", "dropout_"):
        p = args[1] if len(args) > 1 else kwargs.get("p", 0.5)
        train = args[2] if len(args) > 2 else kwargs.get("training", kwargs.get("train", True))
        return not (_is_scalar(p) and float(p) == 0.0) and bool(train)
    return True


class _SeedCalls:
    """Replaces torch.manual_seed (and its CUDA forms) while a forward runs: records each call with
    how many random ops came before it, and does not reseed. A trace cannot record the call, so the
    eager run and the trace only draw the same numbers when neither reseeds; the engine makes the
    call itself (spec "forward_seed") where that is exact."""

    def __init__(self, ops: Optional[_RandomOps] = None) -> None:
        self.calls: List[Tuple[int, int]] = []
        self.ops = ops
        self.saved: List[Tuple[Any, str, Any]] = []

    def __enter__(self) -> "_SeedCalls":
        def fake(seed: int, *_a: Any, **_k: Any) -> Any:
            self.calls.append((int(seed), len(self.ops.names) if self.ops else 0))
            return torch.default_generator
        for mod, name in ((torch, "manual_seed"), (torch.random, "manual_seed"), (torch.cuda, "manual_seed"),
                          (torch.cuda, "manual_seed_all")):
            if hasattr(mod, name):
                self.saved.append((mod, name, getattr(mod, name)))
                setattr(mod, name, fake)
        return self

    def __exit__(self, *exc: Any) -> None:
        for mod, name, f in reversed(self.saved):
            setattr(mod, name, f)
        self.saved = []


def _device_constants_to_input(traced, trace_device: torch.device) -> int:
    """A trace bakes `x.device` into a constant; make it the device of the graph's first tensor
    input so the artifact runs wherever its inputs are. On a GPU trace a constant that names the
    host stays: the file put that tensor on the host itself (`torch.tensor(0.5)` in a forward, which
    eager PyTorch passes to the GPU's kernel as a number); moved to the inputs' device it would be a
    copy to the GPU, and a wait, in every forward that the file does not have. A CPU trace cannot
    tell the two apart, and every constant follows the inputs."""
    changed = 0
    for m in traced.modules():
        try:
            g = m.graph
        except (AttributeError, RuntimeError):
            continue
        tensor_inputs = [v for v in g.inputs() if v.type().kind() == "TensorType"]
        if not tensor_inputs:
            continue
        for n in list(g.nodes()):
            if n.kind() == "prim::Constant" and n.output().type().kind() == "DeviceObjType":
                if trace_device.type != "cpu" and n.output().toIValue().type == "cpu":
                    continue
                d = g.create("prim::device", [tensor_inputs[0]])
                d.output().setType(n.output().type())
                d.insertBefore(n)
                n.output().replaceAllUsesWith(d.output())
                n.destroy()
                changed += 1
    return changed


def _last_line(e: BaseException, path: Path) -> str:
    lines = traceback.format_exception_only(type(e), e)
    msg = lines[-1].strip() if lines else type(e).__name__
    where = ""
    if isinstance(e, SyntaxError) and e.lineno:
        where = f" (line {e.lineno})"
    else:
        for fr in reversed(traceback.extract_tb(e.__traceback__)):
            if os.path.abspath(fr.filename) == os.path.abspath(str(path)):
                where = f" (line {fr.lineno}, in {fr.name})"
                break
    return msg + where


def _close(a: torch.Tensor, b: torch.Tensor) -> Tuple[bool, str]:
    """Equal to 1e-6 absolute + 1e-5 relative (NaN where both are NaN); computed where `a` lives
    so that multi-GB outputs are not copied around."""
    a, b = a.detach(), b.detach().to(a.device)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False, f"shape/dtype {list(b.shape)} {b.dtype} vs {list(a.shape)} {a.dtype}"
    if torch.equal(a, b):
        return True, "equal"
    if not a.dtype.is_floating_point:
        return False, f"{int((a != b).sum())} of {a.numel()} values differ"
    af, bf = a.float(), b.float()
    same = (af == bf) | (af.isnan() & bf.isnan())
    diff = (af - bf).abs().masked_fill(same, 0.0)
    tol = 1e-6 + 1e-5 * bf.abs().nan_to_num(0.0, 0.0, 0.0)
    worst = float(diff.nan_to_num(float("inf")).max())
    return bool((diff <= tol).all()), f"max |diff| {worst:.3g}"


class TaskSource:
    """One task to export: how to build its inputs and model, and how to name and describe it.
    This class is a KernelBench file (``Model(*get_init_inputs())``, ``get_inputs()``); other
    formats (robust_kbench_export.py) override the hooks."""

    def __init__(self, path: Path, level: int, uid: str):
        self.path = path
        self.level = level
        self.tid, self.number, self.stem = task_identity(path, level)
        self.category = category_of(self.stem, level)
        self.mod = load_task_module(path, uid)
        self.init_inputs = list(self.mod.get_init_inputs())
        self.source_name = f"{self.stem}.py"  # the copy of the original, beside the spec
        self.tags = ["imported", "kernelbench"]
        self.forward_kwargs: Dict[str, Any] = {}

    def get_inputs(self) -> Any:
        return self.mod.get_inputs()

    def make_model(self) -> Any:
        return self.mod.Model(*self.init_inputs)

    def replay(self, seed: str) -> str:
        """The Python draws that seed `seed` replays, for the notes."""
        return f"torch.manual_seed({seed}); get_inputs(); Model(*get_init_inputs())"

    def model_call(self) -> str:
        return "Model(*get_init_inputs())"

    def dims_namespace(self) -> Dict[str, Any]:
        """Names to write shape entries as (module-level int constants)."""
        return vars(self.mod)

    def description(self) -> str:
        doc = inspect.getdoc(self.mod.Model) or ""
        first = doc.strip().split("\n\n")[0].replace("\n", " ").strip()
        return (first + " " if first else "") + f"(KernelBench {self.path.parent.name}/{self.path.name})"

    def import_fields(self) -> Dict[str, Any]:
        return {"file": str(self.path.resolve()), "init_inputs": _jsonable(self.init_inputs)}

    def extra_fields(self, model: nn.Module, raw_inputs: List[Any], inputs: List[torch.Tensor],
                     param_names: Dict[int, str], notes: List[str]) -> Dict[str, Any]:
        """Extra top-level spec fields, computed before tracing changes the model."""
        return {}


def export_one(path: Path, out_dir: Path, level: int, device_req: str, uid: str) -> Dict[str, Any]:
    t0 = time.perf_counter()
    return export_task(TaskSource(path, level, uid), out_dir, device_req, t0)


def export_task(src: TaskSource, out_dir: Path, device_req: str, t0: float) -> Dict[str, Any]:
    path, tid, stem = src.path, src.tid, src.stem
    notes: List[str] = []

    device = torch.device("cpu")
    if device_req == "cuda" or (device_req == "auto" and torch.cuda.is_available()):
        device = torch.device("cuda")

    # Seed 0 in the engine's order, which is robust-kbench's: get_inputs() (on the tracing device),
    # then the model (on the CPU) -- recorded. On the CPU these are exactly the tensors the seed-0
    # replay below must reproduce; inputs drawn on CUDA leave the CPU generator untouched, so
    # the replay then draws the reference once more on the CPU.
    state = RecordState()
    torch.manual_seed(0)
    with Recorder(state, device):
        raw_inputs = src.get_inputs()
    if not isinstance(raw_inputs, (list, tuple)):
        raise TaskFileError(f"get_inputs() returned {type(raw_inputs).__name__}, expected a list")
    raw_inputs = list(raw_inputs)
    input_draws = len(state.draws)
    with Recorder(state):
        model = src.make_model()
    if not isinstance(model, nn.Module):
        raise TaskFileError(f"{src.model_call()} is not an nn.Module")

    # Inputs: tensors become spec inputs; anything else is baked into the artifact.
    names = _input_names(model, len(raw_inputs))
    inputs: List[torch.Tensor] = []
    input_specs: List[Dict[str, Any]] = []
    baked: Dict[int, Any] = {}
    for i, v in enumerate(raw_inputs):
        if isinstance(v, torch.Tensor):
            inputs.append(v)
            input_specs.append(tensor_spec(names[i], v, state.get(v), "input"))
        else:
            baked[i] = v
    if baked:
        notes.append("non-tensor inputs are fixed inside the artifact: " +
                     ", ".join(f"{names[i]}={_jsonable(v)!r}" for i, v in baked.items()))

    # Parameters, each with every place it is registered (tied weights share one entry). With them,
    # the tensors the constructor drew from a generator that are not parameters: a plain attribute
    # (an RNN's initial state, ``self.h0 = torch.randn(...)``) or a buffer. Model(*init) draws them
    # again for every seed, so they are arguments like the parameters; a buffer that no generator
    # filled (BatchNorm's running statistics, a causal mask) stays a constant inside the artifact.
    groups: Dict[int, Tuple[str, torch.Tensor, List[Tuple[nn.Module, str, str]]]] = {}
    owner = {}
    for full, m, a, kind, p in _tensor_slots(model):
        if kind != "param":
            prov = state.get(p)
            if prov is None or prov.draw is None:
                continue
        if id(p) not in groups:
            groups[id(p)] = (full, p, [])
            owner[id(p)] = (m, a, full[: len(full) - len(a)], kind)
        if (m, a, kind) not in groups[id(p)][2]:
            groups[id(p)][2].append((m, a, kind))
    plist = list(groups.values())
    keys: List[float] = []
    last = -1.0
    for _, p, _ in plist:
        prov = state.get(p)
        pos = prov.draw if prov is not None else None
        last = float(pos) if pos is not None else last + 1e-6
        keys.append(last)
    order = sorted(range(len(plist)), key=lambda i: keys[i])  # stable: constants stay with siblings
    plist = [plist[i] for i in order]
    input_names = {s["name"] for s in input_specs}
    param_specs: List[Dict[str, Any]] = []
    first_of_draw: Dict[int, Tuple[str, torch.Tensor, Dict[str, Any]]] = {}  # draw index -> its first parameter
    shapes = {name: list(p.shape) for name, p, _ in plist}
    for name, p, _ in plist:
        spec_name = name if name not in input_names else "param." + name
        m, pname, prefix, kind = owner[id(p)]
        prov = state.get(p)
        spec = tensor_spec(spec_name, p.detach(), prov, "parameter")
        if kind != "param":
            spec["origin"] = (f"{'a buffer' if kind == 'buffer' else 'a tensor attribute'} the constructor draws "
                              f"({prov.origin})")
        rule = default_init(m, pname, prefix, p) if kind == "param" else None
        if rule is not None:
            observed = spec["init"] if spec.get("inferred") and not spec.get("post") else {}
            if _matches(rule, observed, list(p.shape), shapes):
                spec["init"] = rule
                spec["origin"] = f"{type(m).__name__} default init"
            elif "draw_before" in spec:
                spec["note"] = (f"{type(m).__name__} drew it ({rule['dist']}), then the constructor set it to "
                                f"{spec['init'].get('value')}: the engine draws and discards the first draw")
            elif not spec.get("inferred"):
                spec["note"] = (spec.get("note", "") + f"; {type(m).__name__} default would be {rule['dist']}").lstrip("; ")
            else:
                notes.append(f"parameter '{spec_name}' is not initialised like {type(m).__name__}'s default; "
                             f"using what the constructor drew ({spec['init']['dist']})")
        # copy.deepcopy (nn.TransformerEncoder clones its layer N times): a parameter made by the
        # same draw as an earlier one, with the same values, is a copy of it, not a draw of its own.
        first = first_of_draw.get(prov.draw) if prov is not None and prov.draw is not None else None
        if (first is not None and first[1].shape == p.shape and first[1].dtype == p.dtype
                and torch.equal(first[1].detach(), p.detach())):
            spec = {"name": spec_name, "shape": spec["shape"], "dtype": spec["dtype"],
                    "init": dict(first[2]["init"]), "inferred": True, "copy_of": first[0],
                    "origin": f"a copy of {first[0]} (copy.deepcopy: the same values, no draw of its own)"}
        elif prov is not None and prov.draw is not None and first is None:
            first_of_draw[prov.draw] = (spec_name, p, spec)
        param_specs.append(spec)
    used_in = {pr.draw for pr in (state.get(t) for t in inputs) if pr is not None}
    stray_in = [o for i, o in enumerate(state.draws[:input_draws]) if i not in used_in]
    used = {pr.draw for pr in (state.get(p) for _, p, _ in plist) if pr is not None}
    # Draws of the constructor into a parameter that a later init drew again (torchvision-style
    # `for m in self.modules(): nn.init.kaiming_normal_(m.weight)` after every layer drew its
    # default): no tensor keeps them, but they move the generator, so the engine makes each again and
    # discards it, right before the first parameter drawn after it ("discard_before", exporter 1.6).
    # A draw that went anywhere else (a Python number the model keeps) stays a stray: the engine
    # cannot draw that number again for each seed.
    drawn_at = [(pr.draw, spec) for (_, p, _), spec in zip(plist, param_specs)
                for pr in [state.get(p)] if pr is not None and pr.draw is not None and "copy_of" not in spec]
    redrawn = {_key(p) for _, p, _ in plist}
    stray: List[str] = []
    for i in range(input_draws, len(state.draws)):
        if i in used:
            continue
        replay = state.replays[i]
        if replay is None or replay["key"] not in redrawn:
            stray.append(state.draws[i])
            continue
        later = next((spec for d, spec in drawn_at if d > i), None)
        if later is not None:
            init = _simplify(replay["init"], [])[0]
            later.setdefault("discard_before", []).append({"shape": replay["shape"], "init": init})
    if any(not s.get("inferred") for s in input_specs + param_specs):
        notes.append("some distributions could not be inferred (marked \"inferred\": false); check them")

    all_specs = input_specs + param_specs
    dims = _dims_and_shapes(src.dims_namespace(), all_specs)
    by_name = {s["name"]: s for s in all_specs}

    # Does seed 0 with the engine's order and draws give exactly these tensors (on the CPU)?
    rng: Dict[str, Any] = {}
    total = sum(int(math.prod(s["_shape"])) for s in all_specs)
    limit = _check_limit(device)
    bad: List[str] = []
    if total <= limit:
        # The reference: torch.manual_seed(0); get_inputs(); Model(*init) on the CPU. The recording
        # above is that run when it drew on the CPU (ENGINE_SEED_ORDER is its order).
        actual_i = inputs
        actual_p = [p.detach() for _, p, _ in plist]
        if device.type != "cpu":
            torch.manual_seed(0)
            with Recorder(RecordState()):
                actual_i = [v for v in src.get_inputs() if isinstance(v, torch.Tensor)]
                again = src.make_model()
            by_path = {}
            for full, _, _, _, p in _tensor_slots(again):
                by_path.setdefault(full, p)
            actual_p = [by_path[name].detach() for name, _, _ in plist]
        torch.manual_seed(0)
        drawn_i = [draw_engine(s, by_name) for s in input_specs]
        drawn_p = draw_engine_params(param_specs, by_name)
        for s, a, b in zip(input_specs + param_specs, actual_i + actual_p, drawn_i + drawn_p):
            # Bit for bit: a tolerance hid that rand * 2b - b is not uniform_(-b, b) (exporter 1.2).
            a = a.detach().cpu()
            if a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b):
                continue
            _, how = _close(b, a)
            bad.append(f"{s['name']} ({how})")
            if not s.get("approximated"):
                s["approximated"] = (f"seed 0 of the engine's draw differs from the original ({how}); "
                                     f"the engine draws another sample from {s['init']['dist']}")
    if stray_in:
        rng = {"compatible": False, "why": "get_inputs() draws random numbers that are not inputs: " +
               ", ".join(stray_in[:3])}
    elif stray:
        rng = {"compatible": False, "why": "the constructor draws random numbers that no tensor of the model keeps: " +
               ", ".join(stray[:3])}
    elif total > limit:
        rng = {"compatible": None, "why": f"not checked: {total} elements are too many to draw again on the CPU"}
    elif bad:
        rng = {"compatible": False,
               "why": ("seed 0 does not reproduce " + ", ".join(bad[:3]) +
                       f" of {src.replay('0')}; flags are comparable in distribution, not value by value")}
    else:
        rng = {"compatible": True,
               "why": f"seed s draws exactly (bit for bit) what {src.replay('s')} draws on the CPU, "
                      f"robust-kbench's order"}

    # Format-specific fields that need the model as built (robust-kbench's kernel call plan).
    spec_names = {id(p): s["name"] for (_, p, _), s in zip(plist, param_specs)}
    extra = src.extra_fields(model, raw_inputs, inputs, spec_names, notes)

    # Trace forward(*inputs, *params) on the chosen device.
    params = [p.detach().clone() for _, p, _ in plist]
    for _, p, where in plist:
        for m, a, kind in where:  # not stored twice
            _set_slot(m, a, kind, nn.Parameter(torch.empty(0), requires_grad=False) if kind == "param"
                      else torch.empty(0))
    model.to(device)
    ex = [t.detach().to(device) for t in inputs] + [p.to(device) for p in params]
    wrapper = _Functional(model, [where for _, _, where in plist], len(inputs), baked, src.forward_kwargs)
    # Does the forward reseed (torch.manual_seed inside forward) or draw random numbers (dropout in
    # training mode)? One eager probe run tells, before tracing.
    ops = _RandomOps()
    # That run's peak device memory (inputs, parameters, intermediates, output): what one forward
    # needs at least, so the engine can tell a task that cannot fit in a worker's share of a GPU
    # before drawing its seeds.
    on_cuda = device.type == "cuda" and torch.cuda.is_available()
    if on_cuda:
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
    with torch.no_grad(), warnings.catch_warnings(), _SeedCalls(ops) as seeds, ops:
        warnings.simplefilter("ignore")
        torch.random.default_generator.manual_seed(1234)
        try:
            wrapper(*ex)
        except Exception as e:  # noqa: BLE001
            raise TaskFileError(f"forward failed on the inputs of get_inputs(): {_last_line(e, path)}") from None
    peak: Dict[str, Any] = {}
    if on_cuda:
        torch.cuda.synchronize(device)
        peak = {"peak_device_bytes": int(torch.cuda.max_memory_allocated(device)),
                "peak_device": torch.cuda.get_device_name(device)}
    forward_seed: Optional[int] = None
    if seeds.calls:
        listed = ", ".join(f"torch.manual_seed({sd})" for sd, _ in seeds.calls)
        if len(seeds.calls) == 1 and seeds.calls[0][1] == 0:
            forward_seed = seeds.calls[0][0]
            notes.append(f"forward calls {listed} before any random op; the engine seeds the generators with "
                         f"{forward_seed} right before every forward call, as the original does")
        else:
            notes.append(f"forward calls {listed} after random ops ({', '.join(ops.names[:3])}); a trace cannot "
                         f"record that call, so the engine runs the forward's random ops from the generators as "
                         f"they stand (other samples than the original forward)")
    if ops.names:
        notes.append(f"forward draws random numbers ({', '.join(sorted(set(ops.names)))}): training mode, as "
                     f"KernelBench runs it; outputs vary with the generator state")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.no_grad(), _SeedCalls():
            torch.random.default_generator.manual_seed(1234)
            if torch.cuda.is_available() and device.type == "cuda":
                torch.cuda.default_generators[device.index or 0].manual_seed(1234)
            try:
                traced = torch.jit.trace(wrapper, tuple(ex), check_trace=False)
            except Exception as e:  # noqa: BLE001
                raise TaskFileError(f"torch.jit.trace failed: {_last_line(e, path)}") from None
            eager = wrapper.last_output
            if not isinstance(eager, torch.Tensor):
                raise TaskFileError(f"forward returns {type(eager).__name__}; KernelSieve needs exactly one tensor")
            torch.random.default_generator.manual_seed(1234)
            if torch.cuda.is_available() and device.type == "cuda":
                torch.cuda.default_generators[device.index or 0].manual_seed(1234)
            again = traced(*ex)
    same, how = _close(again, eager)
    if not same:
        cause = "the forward probably branches on tensor values"
        if ops.names:
            cause = (f"both ran from the same seed, but the forward draws random numbers "
                     f"({', '.join(sorted(set(ops.names)))}) in a way the trace does not replay, or branches on "
                     f"tensor values")
        raise TaskFileError(f"the traced graph does not reproduce the eager output ({how}); {cause}")
    # One input proves little: a forward that branches on its data (``if x.mean() > 0``) traces
    # the branch its example took and gives the other seeds a different function. Compare the
    # trace with eager PyTorch on fresh seeds, drawn as the engine draws them.
    for fresh in FRESH_SEEDS:
        torch.manual_seed(fresh)
        if total <= limit:
            fresh_i = [draw_engine(s, by_name) for s in input_specs]
            fresh_p = draw_engine_params(param_specs, by_name)
        else:  # too large to draw on the CPU: new inputs from get_inputs(), the same parameters
            # Drawn where the seed-0 inputs were (the tracing device: milliseconds for a few GB). The
            # CPU generator draws about 0.5 GB/s on one core, and KernelBench's later level 1 has 59
            # files with more than 1 GB of inputs (8.6 GB for most losses and reductions), three seeds
            # each; this check needs other inputs, not the CPU generator's.
            with Recorder(RecordState(), device):
                fresh_i = [v for v in src.get_inputs() if isinstance(v, torch.Tensor)]
            fresh_p = params
        ex_s = [t.to(device) for t in fresh_i] + [t.to(device) for t in fresh_p]
        outs = []
        for run in (wrapper, traced):
            with torch.no_grad(), warnings.catch_warnings(), _SeedCalls():
                warnings.simplefilter("ignore")
                torch.random.default_generator.manual_seed(1234 + fresh)
                if torch.cuda.is_available() and device.type == "cuda":
                    torch.cuda.default_generators[device.index or 0].manual_seed(1234 + fresh)
                try:
                    out = run(*ex_s)
                except Exception as e:  # noqa: BLE001
                    raise TaskFileError(f"forward failed on the inputs of seed {fresh}: {_last_line(e, path)}") from None
                outs.append(out)
        same, how = _close(outs[1], outs[0])
        if not same:
            raise TaskFileError(
                f"the traced graph differs from eager PyTorch on seed {fresh} ({how}), though it matched on "
                f"get_inputs(): the forward branches on tensor values (data-dependent control flow), and a trace "
                f"records only the branch its example input took")
        del ex_s, outs
    torch_dir = os.path.dirname(torch.__file__)
    seen = set()
    for w in caught:
        if "deprecated" in str(w.message) or str(w.filename).startswith(torch_dir):
            continue
        msg = f"trace warning at line {w.lineno}: {str(w.message).splitlines()[0]}"
        if msg not in seen:
            seen.add(msg)
            notes.append(msg)
    n_dev = _device_constants_to_input(traced, device)
    if n_dev:
        notes.append(f"{n_dev} device constant(s) in the trace now follow the inputs' device")

    output = {"shape": list(eager.shape), "dtype": DTYPE_NAMES.get(eager.dtype, str(eager.dtype).replace("torch.", ""))}
    meta = {
        "kind": "kernelsieve.artifact",
        "exporter_version": EXPORTER_VERSION,
        "torch_version": torch.__version__,
        "task_id": tid,
        "inputs": [{"name": s["name"], "shape": s["_shape"], "dtype": s["dtype"]} for s in input_specs],
        "params": [{"name": s["name"], "shape": s["_shape"], "dtype": s["dtype"]} for s in param_specs],
        "output": output,
        "traced_on": device.type,
    }
    description = src.description()
    for s in all_specs:
        s.pop("_shape", None)
    spec = {
        "kind": "kernelsieve.task",
        "format_version": 1,
        "exporter_version": EXPORTER_VERSION,
        "torch_version": torch.__version__,
        "id": tid,
        "level": src.level,
        "number": src.number,
        "name": stem,
        "category": src.category,
        "description": description,
        "source_file": src.source_name,
        "artifact": f"{stem}.pt",
        "entry": "forward",
        **({"forward_seed": forward_seed} if forward_seed is not None else {}),
        "dims": {"full": dims} if dims else {},
        "inputs": input_specs,
        "params": param_specs,
        "output": output,
        "import": {
            **src.import_fields(),
            "training_mode": bool(model.training),
            "rng_compatible": rng.get("compatible"),
            "rng_note": rng.get("why", ""),
            "rng_order": ENGINE_SEED_ORDER,
            "forward_reseeds": [sd for sd, _ in seeds.calls],
            "forward_random_ops": sorted(set(ops.names)),
            "approximated": [sp["name"] for sp in all_specs if sp.get("approximated")],
            "notes": notes,
            **peak,
        },
        "tags": list(src.tags),
    }
    for k, v in extra.items():
        if k == "import":
            spec["import"].update(v)
        else:
            spec[k] = v
    if not input_specs and not param_specs:
        raise TaskFileError("get_inputs() returns no tensor and the model has no parameters")

    out_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, out_dir / src.source_name)
    art_tmp = out_dir / f".{stem}.pt.tmp"
    traced.save(str(art_tmp), _extra_files={ARTIFACT_META: json.dumps(meta)})
    os.replace(art_tmp, out_dir / f"{stem}.pt")
    json_tmp = out_dir / f".{stem}.json.tmp"
    json_tmp.write_text(json.dumps(spec, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(json_tmp, out_dir / f"{stem}.json")
    return {
        "status": "ok", "id": tid, "spec": str(out_dir / f"{stem}.json"),
        "inputs": len(input_specs), "params": len(param_specs), "output": output,
        "rng_compatible": rng.get("compatible"), "device": device.type,
        "uninferred": [s["name"] for s in all_specs if not s.get("inferred")],
        "notes": notes, "seconds": round(time.perf_counter() - t0, 3),
    }


# --------------------------------------------------------------------------------------------
# Workers: one file at a time each, replaced when a file hangs or kills them
# --------------------------------------------------------------------------------------------

def _export_kernelbench_job(job: Dict[str, Any]) -> Dict[str, Any]:
    return export_one(Path(job["file"]), Path(job["out"]), job["level"], job["device"], job["uid"])


# What a worker calls for a job of each "kind" (robust_kbench_export.py adds its own before the
# workers are forked).
JOB_HANDLERS: Dict[str, Any] = {"kernelbench": _export_kernelbench_job}


def _cuda_context_fault(path: Path) -> str:
    """After a job: empty while this process's CUDA context works, else CUDA's error. A
    device-side assert or an illegal address in a task file's model leaves the context failing
    every later call, so the worker takes no further job (run_pool starts a fresh one). A one-off
    error surfaces once at a sync; a second sync tells it from a broken context.
    KS_TEST_BREAK_CONTEXT_ON_FILE (tests only): as if the file of that name had broken it."""
    if torch.cuda.is_initialized():
        for attempt in range(2):
            try:
                torch.cuda.synchronize()
                return ""
            except Exception as e:  # noqa: BLE001 - CUDA's error, whatever its class
                if attempt == 1:
                    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    if os.environ.get("KS_TEST_BREAK_CONTEXT_ON_FILE") == path.name:
        return "CUDA error: device-side assert triggered (KS_TEST_BREAK_CONTEXT_ON_FILE)"
    return ""


def _worker_main(job_fd: int, res_fd: int, threads: int) -> None:
    os.dup2(2, 1)  # prints in task files must not mix with the protocol on stdout
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    torch.set_num_threads(max(1, threads))
    jobs = os.fdopen(job_fd, "r")
    res = os.fdopen(res_fd, "w")
    for line in jobs:
        job = json.loads(line)
        path = Path(job["file"])
        # A retry after running out of GPU memory beside other workers runs with the device to
        # itself; the variable says so to the task file (a test fixture checks it).
        if job.get("alone"):
            os.environ["KS_IMPORT_ALONE"] = "1"
        else:
            os.environ.pop("KS_IMPORT_ALONE", None)
        # Workers that share a GPU each get an equal share of its memory (less room for their
        # CUDA contexts): a file that needs more fails inside its own share, never in another
        # worker's, and is retried alone with the whole device (run_pool).
        if job.get("device") in ("cuda", "auto") and torch.cuda.is_available():
            share = 1.0 if job.get("alone") else float(job.get("gpu_share", 1.0))
            torch.cuda.set_per_process_memory_fraction(min(1.0, max(share, 0.01)))
        try:
            torch.set_default_dtype(torch.float32)
            r = JOB_HANDLERS[job.get("kind", "kernelbench")](job)
        except TaskFileError as e:
            r = {"status": "error", "error": str(e)}
        except BaseException as e:  # noqa: BLE001 - report any failure of the task file
            r = {"status": "error", "error": _last_line(e, path)}
        fault = _cuda_context_fault(path)
        if fault:
            why = (f"the CUDA context is broken after it ({fault}); the files after it are "
                   "imported by a fresh exporter process")
            if r.get("status") == "ok":  # the fault may have struck any of its kernels
                r = {"status": "error", "error": why + "; what it exported is not kept"}
            else:
                r["error"] = str(r.get("error", "")) + "; " + why
            r["context_broken"] = True
        res.write(json.dumps(r, allow_nan=False, default=str) + "\n")
        res.flush()
        if fault:
            os._exit(0)  # run_pool reaps this worker and starts another for the next file
        gc.collect()  # the previous file's tensors, before the next one allocates its own
        if torch.cuda.is_initialized():
            torch.cuda.empty_cache()
    os._exit(0)


class Worker:
    # The parent's ends of every worker's pipes: a later worker inherits them through fork and
    # must close them, or an earlier worker never sees the end of its job pipe.
    parent_fds: List[int] = []

    def __init__(self, threads: int):
        jr, jw = os.pipe()
        rr, rw = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            for fd in Worker.parent_fds + [jw, rr]:
                try:
                    os.close(fd)
                except OSError:
                    pass
            try:
                _worker_main(jr, rw, threads)
            finally:
                os._exit(1)
        os.close(jr)
        os.close(rw)
        Worker.parent_fds += [jw, rr]
        self.pid = pid
        self.jobs = os.fdopen(jw, "w")
        self.jobs_fd = jw
        self.fd = rr
        self.buf = b""
        self.job: Optional[int] = None
        self.deadline = 0.0

    def send(self, index: int, job: Dict[str, Any], timeout: float) -> None:
        self.job = index
        self.deadline = time.monotonic() + timeout
        self.jobs.write(json.dumps(job) + "\n")
        self.jobs.flush()

    def kill(self) -> str:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return self.reap()

    def reap(self) -> str:
        try:
            self.jobs.close()  # ends the worker's loop
        except OSError:
            pass
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return "exited"
        for f in (self.jobs,):
            try:
                f.close()
            except OSError:
                pass
        try:
            os.close(self.fd)
        except OSError:
            pass
        Worker.parent_fds = [fd for fd in Worker.parent_fds if fd not in (self.fd, self.jobs_fd)]
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                return f"killed by signal {sig} ({signal.Signals(sig).name})"
            except ValueError:
                return f"killed by signal {sig}"
        return f"exited with status {os.WEXITSTATUS(status)}"


def emit(obj: Dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, allow_nan=False, default=str) + "\n")
    sys.stdout.flush()


def find_task_files(folder: Path, globs: str) -> List[Path]:
    pats = [g.strip().lower() for g in globs.split(",") if g.strip()] if globs else []
    files = []
    for p in folder.iterdir():
        if p.suffix != ".py" or p.name.startswith((".", "_")) or not p.is_file():
            continue
        if pats:
            tid, _, stem = task_identity(p, level_of(folder))
            cands = [stem.lower(), p.name.lower(), tid.lower()]
            if not any(fnmatch.fnmatchcase(c, g) for c in cands for g in pats):
                continue
        files.append(p)

    def natural(p: Path):
        m = re.match(r"(\d+)_", p.stem)
        return (0, int(m.group(1)), p.name) if m else (1, 0, p.name)
    return sorted(files, key=natural)


def is_out_of_memory(error: str) -> bool:
    e = error.lower()
    return "out of memory" in e or "outofmemoryerror" in e


def run_pool(jobs_list: List[Dict[str, Any]], labels: List[str], cleanup: Any, timeout: float, njobs: int,
             threads: int) -> Dict[str, int]:
    """Runs every job on `njobs` worker processes and emits one "file" event per job, in job order
    (`labels[i]` as its "file"); `cleanup(i)` removes what a failed job may have left. Returns the
    ok / error counts.

    Workers share the GPU: a job that runs out of GPU memory beside others is retried once alone
    (the others finish and their processes, CUDA contexts and cached memory, are gone) before its
    error is reported (a "retry_alone" event says so at once). Those retries wait until every other
    job is done, then run one after another
    on one worker with the whole device: draining the pool for each of them, as this did until
    2026-12-06, ran KernelBench level 1 (60 of its 100 files retried) one file at a time."""
    results: Dict[int, Dict[str, Any]] = {}
    pending = list(range(len(jobs_list)))
    workers: List[Worker] = []
    next_emit = 0
    counts = {"ok": 0, "error": 0}
    alone: List[int] = []       # out-of-memory jobs waiting for the device to themselves
    retried: Dict[int, str] = {}  # job -> its first error
    running_alone = False
    share = 0.95 / max(1, njobs)  # of the GPU's memory per worker, beside the others
    said_finished = 0  # the "finished" of the last "progress" event

    def finish(i: int, r: Dict[str, Any]) -> None:
        r = dict(r)
        if (r.get("status") != "ok" and i not in retried and njobs > 1
                and is_out_of_memory(str(r.get("error", "")))):
            retried[i] = str(r.get("error", ""))
            cleanup(i)
            alone.append(i)
            # Said now: its "file" event, and those of the files after it, wait for the retry.
            emit({"event": "retry_alone", "index": i, "file": labels[i], "error": retried[i][:200]})
            return
        if i in retried:
            r["note"] = ("out of GPU memory beside other import workers (" + retried[i][:200] +
                         "); retried alone")
        r.update({"event": "file", "index": i, "file": labels[i]})
        if r.get("status") != "ok":
            cleanup(i)
        results[i] = r

    try:
        while pending or alone or any(w.job is not None for w in workers):
            busy_now = [w for w in workers if w.job is not None]
            if not pending and alone and not busy_now:
                if not running_alone:  # the sharing workers go, with their contexts and cached memory
                    for w in list(workers):
                        w.reap()
                        workers.remove(w)
                    running_alone = True
                if not workers:  # (again after a retry that broke its context or timed out)
                    workers.append(Worker(threads))
                i = alone.pop(0)
                job = dict(jobs_list[i])
                job["alone"] = True
                workers[0].send(i, job, timeout)
            elif pending:
                for w in workers:
                    if w.job is None and pending:
                        i = pending.pop(0)
                        w.send(i, dict(jobs_list[i], alone=njobs == 1, gpu_share=share), timeout)
                while pending and len(workers) < njobs:
                    w = Worker(threads)
                    workers.append(w)
                    i = pending.pop(0)
                    w.send(i, dict(jobs_list[i], alone=njobs == 1, gpu_share=share), timeout)
            busy = [w for w in workers if w.job is not None]
            if not busy:
                continue
            wait = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready, _, _ = select.select([w.fd for w in busy], [], [], wait)
            for w in busy:
                if w.fd in ready:
                    chunk = os.read(w.fd, 1 << 16)
                    if not chunk:
                        why = w.reap()
                        finish(w.job, {"status": "error",
                                       "error": f"the exporter process died while importing it ({why})"})
                        w.job = None
                        workers.remove(w)
                        continue
                    w.buf += chunk
                    while b"\n" in w.buf and w.job is not None:
                        line, w.buf = w.buf.split(b"\n", 1)
                        r = json.loads(line)
                        broken = bool(r.pop("context_broken", False))
                        finish(w.job, r)
                        w.job = None
                        if broken:  # its CUDA context fails every call now: it has ended itself
                            w.reap()
                            workers.remove(w)
                elif time.monotonic() >= w.deadline:
                    w.kill()
                    finish(w.job, {"status": "error", "error": f"timed out after {timeout:g} s (--timeout)"})
                    w.job = None
                    workers.remove(w)
            while next_emit in results:
                r = results[next_emit]
                counts["ok" if r.get("status") == "ok" else "error"] += 1
                emit(r)
                next_emit += 1
            # Files done whose lines wait for an earlier one (a deferred retry, a slow file): say
            # how far the import is, since the "file" events pause meanwhile.
            if len(results) > next_emit and len(results) != said_finished:
                said_finished = len(results)
                emit({"event": "progress", "finished": len(results), "total": len(jobs_list),
                      "waiting_for": labels[next_emit]})
    finally:
        for w in workers:
            try:
                w.jobs.close()
            except OSError:
                pass
            w.reap() if w.job is None else w.kill()
    return counts


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description="Export a KernelBench level folder to KernelSieve tasks "
                                             "(JSON lines on stdout).")
    ap.add_argument("folder", help="a KernelBench folder of <N>_<Name>.py files, e.g. KernelBench/level1")
    ap.add_argument("--out", required=True, help="output suite folder; files go to OUT/<folder name>/")
    ap.add_argument("--tasks", default="", help="only files whose name or id matches (globs, comma-separated)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per file before it is abandoned")
    ap.add_argument("--jobs", type=int, default=0, help="files exported in parallel (default: min(4, cores))")
    ap.add_argument("--level", type=int, default=-1, help="level to record (default: from the folder name)")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                    help="where the model runs while tracing (default: cuda when available)")
    args = ap.parse_args(argv)

    if not math.isfinite(args.timeout) or args.timeout <= 0:  # argparse's float() takes "nan" and "inf"
        emit({"event": "fatal", "code": 3, "error": f"--timeout must be a positive, finite number of seconds, "
                                                     f"got {args.timeout}"})
        return 3
    folder = Path(args.folder)
    if not folder.is_dir():
        emit({"event": "fatal", "code": 3, "error": f"{folder}: not a folder"})
        return 3
    level = args.level if args.level >= 0 else level_of(folder)
    files = find_task_files(folder, args.tasks)
    if not files:
        emit({"event": "fatal", "code": 3,
              "error": f"{folder}: no task files (*.py)" + (f" match --tasks '{args.tasks}'" if args.tasks else "")})
        return 3
    out_dir = Path(args.out) / (folder.resolve().name or "tasks")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        probe = out_dir / ".ks_write_probe"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        emit({"event": "fatal", "code": 5, "error": f"cannot write to {out_dir}: {e.strerror or e}"})
        return 5
    cores = os.cpu_count() or 1
    jobs = args.jobs if args.jobs > 0 else max(1, min(4, cores, len(files)))
    jobs = min(jobs, len(files))
    threads = max(1, cores // jobs)
    emit({"event": "start", "folder": str(folder.resolve()), "out": str(out_dir.resolve()), "total": len(files),
          "level": level, "jobs": jobs, "exporter_version": EXPORTER_VERSION, "torch_version": torch.__version__,
          "python": sys.executable})

    t0 = time.perf_counter()

    def cleanup(i: int) -> None:
        stem = files[i].stem
        for ext in (".json", ".pt", ".py"):  # a stale export of a now-broken file must not load
            try:
                (out_dir / f"{stem}{ext}").unlink()
            except OSError:
                pass
    jobs_list = [{"file": str(f.resolve()), "out": str(out_dir), "level": level, "device": args.device,
                  "uid": str(i)} for i, f in enumerate(files)]
    counts = run_pool(jobs_list, [f.name for f in files], cleanup, args.timeout, jobs, threads)
    emit({"event": "done", "ok": counts["ok"], "failed": counts["error"], "total": len(files),
          "seconds": round(time.perf_counter() - t0, 3), "out": str(out_dir.resolve())})
    return 0


if __name__ == "__main__":
    sys.exit(main())
