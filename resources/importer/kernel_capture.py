#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Capture how a Python file calls its CUDA extension, without compiling or running CUDA.

Two modes (docs/external-kernels.md, "Call plan"):

``modelnew FILE.py --task-json TASK.json --out RESULT.json``
    A KernelBench ``ModelNew`` file. ``torch.utils.cpp_extension.load_inline`` is replaced by a
    recorder before the file runs (``load``, which compiles files from disk, is refused), so the
    file's ``load_inline(...)`` returns an object whose functions record their calls instead of
    running. ``ModelNew(*init_inputs)`` is built (``import.init_inputs`` of the task, else the
    file's ``get_init_inputs()``, else no arguments) and ``forward`` is called once on CPU zeros
    of the task's input shapes (preset ``small``, dims it does not name from ``full``) under a
    ``TorchFunctionMode`` that sees every torch call. Accepted only when forward calls exactly one
    extension function once and returns that call's result object unchanged; each argument must
    be a forward input, a parameter or buffer of ModelNew with a counterpart among the task's
    parameters (same name, else the one task parameter of the same shape), or a plain number,
    bool, None or list of ints.

``forward-call FUNC_FORWARD.py [--config CONFIG.json] [--task-json TASK.json] --out RESULT.json``
    A robust-kbench ``func_forward.py``: ``Model(**init_setting)`` (first settings of
    ``config_forward.json``, shared merged into both) and ``Model.forward(*inputs, fn=recorder)``,
    recording how forward calls ``fn`` (the kernel's ``forward``), with the same rules.

Calls that forward may make besides the extension: metadata queries (``x.shape``, ``x.size(0)``,
``x.dtype``, ``x.numel()``, ...) and conversions that return the very same tensor
(``x.contiguous()`` on a contiguous tensor, ``x.cuda()`` / ``x.to("cuda")`` on a tensor that is on
the GPU, as KernelSieve's are, ``x.float()`` on float32). Anything else is refused with the torch
function's name and the line.

Exactly one JSON object is written to RESULT.json: the capture, or ``{"error": "..."}`` naming the
file and, where known, the line. Exit status 0 when RESULT.json was written (error or not),
3 when it could not be written, 2 for bad usage. The captured file's prints go to stderr.

Needs Python 3.8+ and torch (2.x); nothing is compiled and no GPU is used.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import math
import os
import signal
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

sys.dont_write_bytecode = True  # never leave __pycache__ beside the captured file

try:
    import torch
    import torch.nn as nn
    from torch.overrides import TorchFunctionMode
    _TORCH_ERROR = ""
except ImportError as _e:  # pragma: no cover - depends on the machine
    torch = None  # type: ignore[assignment]
    TorchFunctionMode = object  # type: ignore[assignment,misc]
    _TORCH_ERROR = (f"torch is not importable by {sys.executable} ({_e}); install it with "
                    f"'{sys.executable} -m pip install torch' or use another Python")

CAPTURE_VERSION = "1.0"

DTYPES = {} if torch is None else {
    "float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32, "bool": torch.bool,
}

# The config keys robust-kbench's ConfigTask reads (robust_kbench/config_task.py): lists of
# settings; shared settings are merged into both the input and the init settings, last.
RK_INPUT_KEY, RK_INIT_KEY, RK_SHARED_KEY = "single_input_configs", "single_init_configs", "single_shared_configs"


class CaptureError(Exception):
    """The capture is refused; the message says why (without the file name, added on output)."""


class _Refused(BaseException):
    """Raised inside the captured code on the first refused torch call or second extension call.
    A BaseException, so that the file's own `except Exception:` cannot swallow it."""


# --------------------------------------------------------------------------------------------
# Where in the captured file we are
# --------------------------------------------------------------------------------------------

class Session:
    """State of one capture: the extension modules the file built, the calls forward made."""

    def __init__(self, path: Path):
        self.path = os.path.abspath(str(path))
        self.name = os.path.basename(self.path)
        self.modules: List[Dict[str, Any]] = []
        self.refusal: Optional[str] = None  # a refused load()/load_inline use, reported first
        self.phase = "load"  # load | init | forward
        self.calls: List[Dict[str, Any]] = []
        self.watch: Optional["ForwardWatch"] = None
        self.meta_ints: Dict[int, str] = {}  # ints forward read from tensor metadata -> where
        self.ext = "the extension"  # how messages name what forward should call ("fn" for robust-kbench)

    def line(self) -> Optional[int]:
        """The innermost line of the captured file on the current stack."""
        f = sys._getframe(1)
        while f is not None:
            if os.path.abspath(f.f_code.co_filename) == self.path:
                return f.f_lineno
            f = f.f_back
        return None

    def at(self, line: Optional[int]) -> str:
        return f" (line {line})" if line else ""

    def refuse(self, msg: str) -> None:
        if self.refusal is None:
            self.refusal = msg
        raise _Refused(msg)


def _exc_text(e: BaseException, path: str) -> str:
    """Last line of an exception, with the line of `path` where it happened."""
    lines = traceback.format_exception_only(type(e), e)
    msg = lines[-1].strip() if lines else type(e).__name__
    if isinstance(e, SyntaxError) and e.lineno:
        return msg + f" (line {e.lineno})"
    for fr in reversed(traceback.extract_tb(e.__traceback__)):
        if os.path.abspath(fr.filename) == path:
            return msg + f" (line {fr.lineno}, in {fr.name})"
    return msg


# --------------------------------------------------------------------------------------------
# The load_inline recorder
# --------------------------------------------------------------------------------------------

def _joined_sources(v: Any, what: str) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
        return "\n".join(v)
    raise CaptureError(f"load_inline's {what} is a {type(v).__name__}, not a string or a list of strings")


def _flag_list(v: Any, what: str) -> List[str]:
    if v is None:
        return []
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
        raise CaptureError(f"load_inline's {what} is not a list of strings")
    return [x for x in v if x.strip()]  # KernelBench files often pass [""]


def _function_names(v: Any) -> List[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    if isinstance(v, dict):
        return [str(k) for k in v.keys()]
    if isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
        return list(v)
    raise CaptureError(f"load_inline's functions is a {type(v).__name__}, not a list, dict or string of names")


class ExtensionFunction:
    """One bound function of a recorded extension: calling it records the call."""

    def __init__(self, session: Session, module: Optional[Dict[str, Any]], name: str):
        self._s = session
        self._module = module
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        s = self._s
        line = s.line()
        what = self.__name__ if self._module is None else f"{self._module['name']}.{self.__name__}"
        if s.phase != "forward":
            s.refuse(f"the extension function {what} is called outside forward{s.at(line)}; KernelSieve "
                     f"calls the kernel only as forward does")
        if s.calls:
            s.refuse(f"forward calls {s.ext} a second time ({what}{s.at(line)}; the first call was "
                     f"{s.calls[0]['what']}{s.at(s.calls[0]['line'])}); KernelSieve runs exactly one call")
        # The result stands for the kernel's output tensor: a fresh tensor, so that whatever forward
        # does with it afterwards is seen as a torch call.
        first = next((a for a in args if isinstance(a, torch.Tensor)), None)
        w = s.watch
        if w is not None:
            w.paused += 1
        try:
            result = torch.zeros_like(first) if first is not None else torch.zeros(())
        finally:
            if w is not None:
                w.paused -= 1
        s.calls.append({"module": self._module, "function": self.__name__, "what": what, "args": args,
                        "kwargs": kwargs, "line": line, "result": result})
        return result


class ExtensionModule:
    """What the recorded load_inline returns: its functions are ExtensionFunctions."""

    def __init__(self, session: Session, info: Dict[str, Any]):
        self._ks_session = session
        self._ks_info = info
        self._ks_functions: Dict[str, ExtensionFunction] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name.startswith("_ks_"):
            raise AttributeError(name)
        info = self._ks_info
        if info["functions"] and name not in info["functions"]:
            raise AttributeError(f"extension '{info['name']}' binds no function '{name}' "
                                 f"(load_inline functions={info['functions']})")
        if name not in self._ks_functions:
            self._ks_functions[name] = ExtensionFunction(self._ks_session, info, name)
        return self._ks_functions[name]


def install_recorders(session: Session) -> Callable[[], None]:
    """Replaces torch.utils.cpp_extension.load_inline / load; returns the undo."""
    import torch.utils.cpp_extension as ce
    real_inline, real_load = ce.load_inline, ce.load
    sig = inspect.signature(real_inline)

    def load_inline(*args: Any, **kwargs: Any) -> Any:
        line = session.line()
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            session.refuse(f"load_inline{session.at(line)}: {e}")
        bound.apply_defaults()
        a = bound.arguments
        try:
            if a.get("sycl_sources"):
                raise CaptureError("it has sycl_sources, which KernelSieve does not compile")
            if a.get("is_python_module", True) is False:
                raise CaptureError("is_python_module=False (operators registered with TORCH_LIBRARY and called "
                                   "through torch.ops) cannot be captured")
            info = {
                "name": str(a.get("name")),
                "cpp_sources": _joined_sources(a.get("cpp_sources"), "cpp_sources"),
                "cuda_sources": _joined_sources(a.get("cuda_sources"), "cuda_sources"),
                "functions": _function_names(a.get("functions")),
                "extra_cflags": _flag_list(a.get("extra_cflags"), "extra_cflags"),
                "extra_cuda_cflags": _flag_list(a.get("extra_cuda_cflags"), "extra_cuda_cflags"),
                "extra_ldflags": _flag_list(a.get("extra_ldflags"), "extra_ldflags"),
                "extra_include_paths": _flag_list(a.get("extra_include_paths"), "extra_include_paths"),
                "line": line,
            }
        except CaptureError as e:
            session.refuse(f"load_inline{session.at(line)}: {e}")
        session.modules.append(info)
        return ExtensionModule(session, info)

    def load(*args: Any, **kwargs: Any) -> Any:
        line = session.line()
        sources = kwargs.get("sources", args[1] if len(args) > 1 else None)
        if isinstance(sources, str):
            sources = [sources]
        hint = ""
        if isinstance(sources, (list, tuple)) and len(sources) == 1 and str(sources[0]).endswith(".cu"):
            hint = f"; evaluate {os.path.basename(str(sources[0]))} itself as a torch-extension kernel instead"
        session.refuse(f"torch.utils.cpp_extension.load(sources={list(sources) if sources else sources!r}){session.at(line)} "
                       f"compiles files from disk; only load_inline's inline sources can be captured{hint}")

    load_inline.__wrapped__ = real_inline  # type: ignore[attr-defined]
    ce.load_inline, ce.load = load_inline, load

    def undo() -> None:
        ce.load_inline, ce.load = real_inline, real_load
    return undo


# --------------------------------------------------------------------------------------------
# Watching forward's torch calls
# --------------------------------------------------------------------------------------------

_META = {"size", "dim", "ndimension", "numel", "nelement", "stride", "is_contiguous", "element_size",
         "get_device", "storage_offset", "is_floating_point", "is_complex", "is_signed", "data_ptr",
         "__len__", "__repr__", "__format__", "__str__", "__get__", "has_names"}
# Conversions that do nothing when they return their own argument (checked on the result).
_SAME_OBJECT = {"contiguous", "float", "double", "half", "bfloat16", "int", "long", "bool", "type",
                "requires_grad_"}


def func_name(func: Any) -> str:
    name = getattr(func, "__name__", "") or repr(func)
    if name == "__get__":
        attr = getattr(getattr(func, "__self__", None), "__name__", "?")
        return f"Tensor.{attr}"
    qual = getattr(func, "__qualname__", "") or ""
    module = getattr(func, "__module__", "") or ""
    if qual.startswith(("TensorBase.", "Tensor.")):
        return "Tensor." + name
    if module == "torch.nn.functional":
        return "torch.nn.functional." + name
    if module.startswith("torch"):
        return "torch." + name if module in ("torch", "torch._C._VariableFunctions") else f"{module}.{name}"
    return f"{module}.{qual or name}" if module else name


def _device_of(v: Any) -> Optional[str]:
    if isinstance(v, torch.device):
        return v.type
    if isinstance(v, str):
        try:
            return torch.device(v).type
        except (RuntimeError, ValueError):
            return None
    return None


def _ints_in(v: Any) -> List[int]:
    if isinstance(v, bool):
        return []
    if isinstance(v, int):
        return [v]
    if isinstance(v, (tuple, list)):
        return [x for x in v if isinstance(x, int) and not isinstance(x, bool)]
    return []


class DeviceFree(TorchFunctionMode):
    """While the file is loaded and ModelNew is built: tensors stay on the CPU whatever the file
    asks for (`device="cuda"`, `.cuda()`, `.to("cuda")`); nothing is refused yet."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        name = getattr(func, "__name__", "")
        if _device_of(kwargs.get("device")) not in (None, "cpu"):
            kwargs.pop("device")
        if name == "cuda" and args and isinstance(args[0], torch.Tensor):
            return args[0]
        if name == "to" and args and isinstance(args[0], torch.Tensor):
            rest = [a for a in args[1:] if _device_of(a) in (None, "cpu")]
            kwargs.pop("non_blocking", None)
            if not rest and not kwargs:
                return args[0]
            args = (args[0], *rest)
        return func(*args, **kwargs)


class ForwardWatch(TorchFunctionMode):
    """During forward: metadata reads and same-object conversions pass, anything else refuses the
    capture at its line."""

    def __init__(self, session: Session):
        super().__init__()
        self.s = session
        self.paused = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if self.paused:
            return func(*args, **kwargs)
        s = self.s
        name = getattr(func, "__name__", "")
        first = args[0] if args else None
        line = s.line()
        shown = func_name(func)
        if isinstance(first, torch.Tensor) and name == "cuda":
            return first  # KernelSieve's tensors are on the GPU already: the same object there
        if isinstance(first, torch.Tensor) and name == "to":
            rest = []
            for a in args[1:]:
                d = _device_of(a)
                if d == "cpu":
                    s.refuse(f"forward moves a tensor to the CPU ({shown}{s.at(line)}); KernelSieve passes GPU tensors")
                if d is None:
                    rest.append(a)
            d = _device_of(kwargs.get("device"))
            if d == "cpu":
                s.refuse(f"forward moves a tensor to the CPU ({shown}{s.at(line)}); KernelSieve passes GPU tensors")
            kwargs.pop("device", None)
            kwargs.pop("non_blocking", None)
            if not rest and not kwargs:
                return first
            out = func(first, *rest, **kwargs)
            if out is first:
                return out
            s.refuse(f"forward converts a tensor ({shown}{s.at(line)}, a new tensor); KernelSieve passes the "
                     f"task's tensors to the kernel as they are")
        if name in _META:
            out = func(*args, **kwargs)
            if not isinstance(out, torch.Tensor) and not (isinstance(out, (tuple, list)) and
                                                          any(isinstance(x, torch.Tensor) for x in out)):
                if name not in ("data_ptr", "__repr__", "__format__", "__str__"):
                    for v in _ints_in(out):
                        s.meta_ints.setdefault(v, f"{shown}{s.at(line)}")
                return out
        elif name in _SAME_OBJECT and isinstance(first, torch.Tensor):
            out = func(*args, **kwargs)
            if out is first:
                return out
        tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
        on = next((c for c in s.calls if any(t is c["result"] for t in tensors)), None)
        where = f"on the result of {on['what']}" if on is not None else f"besides {s.ext}"
        s.refuse(f"forward calls {shown} {where}{s.at(line)}; KernelSieve runs only the call of {s.ext}, so "
                 f"anything else forward computes would be lost")


# --------------------------------------------------------------------------------------------
# Arguments -> call plan
# --------------------------------------------------------------------------------------------

def classify_args(session: Session, call: Dict[str, Any], inputs: Sequence[Any],
                  tensors: Dict[int, Tuple[str, Optional[str], str]], who: str) -> List[Dict[str, Any]]:
    """The call plan of one recorded call. `inputs`: forward's inputs in task order (only tensors
    count); `tensors`: id -> (own name, task parameter name or None, why not) for the module's
    parameters and buffers; `who`: "ModelNew" or "Model"."""
    line = call["line"]
    if call["kwargs"]:
        raise CaptureError(f"{call['what']} is called with keyword arguments ({', '.join(call['kwargs'])})"
                           f"{session.at(line)}; KernelSieve passes arguments by position")
    input_index = {id(t): i for i, t in enumerate(inputs) if isinstance(t, torch.Tensor)}
    plan: List[Dict[str, Any]] = []
    for k, v in enumerate(call["args"]):
        where = f"argument {k + 1} of {call['what']}{session.at(line)}"
        if isinstance(v, torch.Tensor):
            if id(v) in input_index:
                plan.append({"input": input_index[id(v)]})
            elif id(v) in tensors:
                own, task_name, why = tensors[id(v)]
                if task_name is None:
                    raise CaptureError(f"{where} is {who}'s '{own}', {why}")
                plan.append({"param": task_name})
            elif any(v is c["result"] for c in session.calls):
                raise CaptureError(f"{where} is the result of an extension call")
            else:
                raise CaptureError(f"{where} is a tensor that is neither a forward input nor a parameter or "
                                   f"buffer of {who} (a tensor made in forward or a plain attribute); "
                                   f"KernelSieve can pass only the task's inputs and parameters")
        elif v is None or isinstance(v, bool):
            plan.append({"value": v})
        elif isinstance(v, (int, float)):
            if isinstance(v, float) and not math.isfinite(v):
                raise CaptureError(f"{where} is {v!r}, which the call plan cannot hold")
            if isinstance(v, int) and v not in (0, 1) and v in session.meta_ints:
                raise CaptureError(f"{where} is {v}, the value forward read from {session.meta_ints[v]} at the "
                                   f"captured shapes; a literal would be wrong at other shapes, so let the "
                                   f"kernel read sizes from its tensors")
            plan.append({"value": v})
        elif isinstance(v, (list, tuple)) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            for x in v:
                if x not in (0, 1) and x in session.meta_ints:
                    raise CaptureError(f"{where} holds {x}, the value forward read from {session.meta_ints[x]} at "
                                       f"the captured shapes; a literal would be wrong at other shapes")
            plan.append({"value": list(v)})
        else:
            raise CaptureError(f"{where} is a {type(v).__name__} ({_short(v)}); the call plan holds task inputs, "
                               f"task parameters, numbers, bools, None and lists of ints")
    return plan


def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def run_forward(session: Session, call_forward: Callable[[], Any]) -> Tuple[Dict[str, Any], Any]:
    """Runs forward under the watch; returns the one recorded call and forward's result."""
    session.phase = "forward"
    watch = ForwardWatch(session)
    session.watch = watch
    real_sync = torch.cuda.synchronize
    torch.cuda.synchronize = lambda device=None: None  # harmless in forward; there is no GPU here
    try:
        with torch.no_grad(), watch:
            out = call_forward()
    finally:
        torch.cuda.synchronize = real_sync
        session.watch = None
        session.phase = "done"
    if not session.calls:
        raise CaptureError(f"forward does not call {session.ext}")
    call = session.calls[0]
    if out is not call["result"]:
        if isinstance(out, (tuple, list)) and any(x is call["result"] for x in out):
            got = f"a {type(out).__name__} holding it"
        elif isinstance(out, torch.Tensor):
            got = "another tensor"
        else:
            got = f"a {type(out).__name__}"
        raise CaptureError(f"forward returns {got}, not the result of {call['what']}{session.at(call['line'])} "
                           f"unchanged; KernelSieve takes the kernel's result as the output")
    return call, out


# --------------------------------------------------------------------------------------------
# Task JSON: shapes and parameters
# --------------------------------------------------------------------------------------------

def _preset_dims(task: Dict[str, Any]) -> Tuple[Dict[str, int], Dict[str, int]]:
    dims = task.get("dims") or {}
    full = dict(dims.get("full") or {})
    small = {**full, **(dims.get("small") or {})}
    return small, full


def _shape(spec: Dict[str, Any], dims: Dict[str, int], task_id: str) -> List[int]:
    out = []
    for d in spec.get("shape", []):
        if isinstance(d, bool):
            raise CaptureError(f"task {task_id}: '{spec.get('name')}' has a bool in its shape")
        if isinstance(d, int):
            out.append(d)
        elif isinstance(d, str) and d in dims:
            out.append(int(dims[d]))
        else:
            raise CaptureError(f"task {task_id}: dim '{d}' of '{spec.get('name')}' is not in its dims")
    return out


def task_inputs(task: Dict[str, Any]) -> List[torch.Tensor]:
    """CPU zeros of the task's inputs, at the small preset."""
    small, _ = _preset_dims(task)
    tid = str(task.get("id", "?"))
    out = []
    for spec in task.get("inputs", []):
        dtype = DTYPES.get(spec.get("dtype", "float32"))
        if dtype is None:
            raise CaptureError(f"task {tid}: input '{spec.get('name')}' has an unknown dtype {spec.get('dtype')!r}")
        out.append(torch.zeros(_shape(spec, small, tid), dtype=dtype))
    return out


def _named_tensors(module: nn.Module) -> List[Tuple[str, torch.Tensor, str]]:
    seen = set()
    out = []
    for kind, items in (("parameter", module.named_parameters()), ("buffer", module.named_buffers())):
        for name, t in items:
            if id(t) not in seen:
                seen.add(id(t))
                out.append((name, t, kind))
    return out


def map_to_task(module: nn.Module, task: Dict[str, Any]) -> Dict[int, Tuple[str, Optional[str], str]]:
    """id of each parameter / buffer of `module` -> (own name, task parameter or None, why not):
    the task parameter of the same name, else the only unclaimed one of the same shape (at either
    preset) and dtype."""
    small, full = _preset_dims(task)
    tid = str(task.get("id", "?"))
    params = []
    for spec in task.get("params", []):
        shapes = []
        for dims in (small, full):
            try:
                shapes.append(_shape(spec, dims, tid))
            except CaptureError:
                pass
        params.append((spec["name"], shapes, spec.get("dtype", "float32")))
    by_name = {n: (shapes, dt) for n, shapes, dt in params}
    named = _named_tensors(module)
    result: Dict[int, Tuple[str, Optional[str], str]] = {}
    claimed = set()
    for own, t, kind in named:
        if own in by_name:
            shapes, dt = by_name[own]
            if list(t.shape) in shapes and DTYPES.get(dt) == t.dtype:
                result[id(t)] = (own, own, "")
                claimed.add(own)
            else:
                result[id(t)] = (own, None, f"whose shape {list(t.shape)} / dtype differs from task {tid}'s parameter "
                                            f"'{own}' ({' or '.join(str(s) for s in shapes)}, {dt})")
                claimed.add(own)
    by_shape: Dict[str, List[str]] = {}
    pending = []
    for own, t, kind in named:
        if id(t) in result:
            continue
        cands = [n for n, shapes, dt in params if n not in claimed and list(t.shape) in shapes and DTYPES.get(dt) == t.dtype]
        pending.append((own, t, kind, cands))
        if len(cands) == 1:
            by_shape.setdefault(cands[0], []).append(own)
    for own, t, kind, cands in pending:
        if len(cands) == 1 and len(by_shape[cands[0]]) == 1:
            result[id(t)] = (own, cands[0], "")
        elif len(cands) == 1:
            others = [o for o in by_shape[cands[0]] if o != own]
            result[id(t)] = (own, None, f"a {kind} that matches task {tid}'s parameter '{cands[0]}' only by shape, "
                                        f"as {', '.join(repr(o) for o in others)} does too; name it '{cands[0]}'")
        elif cands:
            result[id(t)] = (own, None, f"a {kind} whose shape {list(t.shape)} matches several parameters of task "
                                        f"{tid} ({', '.join(cands)}); name it after the one it is")
        else:
            names = ", ".join(n for n, _, _ in params) or "none"
            result[id(t)] = (own, None, f"a {kind} with no counterpart in task {tid} (no parameter of that name, "
                                        f"none of shape {list(t.shape)}; the task's parameters: {names}); "
                                        f"KernelSieve passes only the task's parameters")
    return result


# --------------------------------------------------------------------------------------------
# Loading the captured file
# --------------------------------------------------------------------------------------------

def load_file(session: Session, path: Path, module_name: str) -> Any:
    spec = importlib.util.spec_from_file_location(module_name, session.path)
    if spec is None or spec.loader is None:
        raise CaptureError("cannot be imported as a Python module")
    mod = importlib.util.module_from_spec(spec)
    session.phase = "load"
    with DeviceFree():
        spec.loader.exec_module(mod)
    return mod


def first_settings(config: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any], List[str]]:
    """robust-kbench's first (input, init) setting pair: the first entry of each single_* list,
    the shared setting merged into both last (as its ConfigTask.get_configs does). A missing or
    empty list counts as one empty setting (their code would stop), with a note."""
    if not isinstance(config, dict):
        raise CaptureError("the config is not a JSON object")
    notes: List[str] = []

    def first(key: str) -> Dict[str, Any]:
        v = config.get(key)
        if v is None:
            notes.append(f"the config has no '{key}'; used {{}}")
            return {}
        if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
            raise CaptureError(f"the config's '{key}' is not a list of settings objects")
        if not v:
            notes.append(f"the config's '{key}' is empty; used {{}}")
            return {}
        if len(v) > 1:
            notes.append(f"the config's '{key}' has {len(v)} settings; used the first")
        return dict(v[0])
    inp, init, shared = first(RK_INPUT_KEY), first(RK_INIT_KEY), first(RK_SHARED_KEY)
    return {**inp, **shared}, {**init, **shared}, notes


def _init_args(task: Dict[str, Any], mod: Any) -> Tuple[List[Any], Dict[str, Any]]:
    imp = task.get("import") or {}
    if isinstance(imp.get("init_inputs"), list):
        args = imp["init_inputs"]
        bad = [a for a in args if isinstance(a, str) and a.startswith("<tensor")]
        if bad:
            raise CaptureError(f"task {task.get('id')}: its import.init_inputs hold a tensor ({bad[0]}), which "
                               f"cannot be rebuilt")
        return list(args), {}
    if imp.get("format") == "robust-kbench" and isinstance((imp.get("config") or {}).get("init"), dict):
        return [], dict(imp["config"]["init"])
    if hasattr(mod, "get_init_inputs"):
        with DeviceFree():
            return list(mod.get_init_inputs()), {}
    return [], {}


# --------------------------------------------------------------------------------------------
# The two modes
# --------------------------------------------------------------------------------------------

def capture_modelnew(path: Path, task: Dict[str, Any]) -> Dict[str, Any]:
    session = Session(path)
    undo = install_recorders(session)
    try:
        try:
            mod = load_file(session, path, "_ks_modelnew")
        except _Refused:
            raise CaptureError(session.refusal or "refused") from None
        if session.refusal:  # a refused load() the file caught itself
            raise CaptureError(session.refusal)
        if not hasattr(mod, "ModelNew"):
            raise CaptureError("defines no class ModelNew")
        if not session.modules:
            raise CaptureError("builds no extension with torch.utils.cpp_extension.load_inline")
        args, kwargs = _init_args(task, mod)
        session.phase = "init"
        try:
            with DeviceFree():
                model = mod.ModelNew(*args, **kwargs)
        except _Refused:
            raise CaptureError(session.refusal or "refused") from None
        if not isinstance(model, nn.Module):
            raise CaptureError("ModelNew(...) is not an nn.Module")
        inputs = task_inputs(task)
        try:
            call, _ = run_forward(session, lambda: model(*inputs))
        except _Refused:
            raise CaptureError(session.refusal or "refused") from None
        if session.refusal:
            raise CaptureError(session.refusal)
        plan = classify_args(session, call, inputs, map_to_task(model, task), "ModelNew")
        info = call["module"]
        out = {"format": "modelnew", "module_name": info["name"], "cpp_sources": info["cpp_sources"],
               "cuda_sources": info["cuda_sources"], "functions": info["functions"],
               "extra_cflags": info["extra_cflags"], "extra_cuda_cflags": info["extra_cuda_cflags"]}
        for k in ("extra_ldflags", "extra_include_paths"):
            if info[k]:
                out[k] = info[k]
        out["call"] = {"function": call["function"], "args": plan}
        return out
    finally:
        undo()


def plan_forward_call(path: Path, model: nn.Module, inputs: Sequence[Any],
                      tensors: Dict[int, Tuple[str, Optional[str], str]]) -> Dict[str, Any]:
    """How `model.forward(*inputs, fn=recorder)` calls fn (robust-kbench): the call plan
    {"function": "forward", "args": [...]}. Raises CaptureError when it cannot be one."""
    session = Session(path)
    session.ext = "fn"
    fn = ExtensionFunction(session, None, "fn")
    try:
        call, _ = run_forward(session, lambda: model(*inputs, fn=fn))
    except _Refused:
        raise CaptureError(session.refusal or "refused") from None
    plan = classify_args(session, call, inputs, tensors, "Model")
    return {"function": "forward", "args": plan}


def own_names(model: nn.Module, input_names: Sequence[str] = ()) -> Dict[int, Tuple[str, Optional[str], str]]:
    """Parameters named as the KernelBench exporter names them; buffers are not task parameters."""
    out: Dict[int, Tuple[str, Optional[str], str]] = {}
    for own, t, kind in _named_tensors(model):
        if kind == "parameter":
            out[id(t)] = (own, own if own not in input_names else "param." + own, "")
        else:
            out[id(t)] = (own, None, "a buffer, which an imported task keeps as a constant inside its artifact; "
                                     "KernelSieve cannot pass it to the kernel")
    return out


def capture_forward_call(path: Path, config: Dict[str, Any], task: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    session = Session(path)
    try:
        mod = load_file(session, path, "_ks_func_forward")
    except _Refused:
        raise CaptureError(session.refusal or "refused") from None
    for name in ("Model", "get_inputs"):
        if not hasattr(mod, name):
            raise CaptureError(f"defines no '{name}' (a robust-kbench func_forward.py defines forward_fn, class "
                               f"Model and get_inputs)")
    input_setting, init_setting, _ = first_settings(config)
    with DeviceFree():
        model = mod.Model(**init_setting)
    if not isinstance(model, nn.Module):
        raise CaptureError("Model(**init_setting) is not an nn.Module")
    if task is not None:
        inputs: List[Any] = task_inputs(task)
        tensors = map_to_task(model, task)
    else:
        with DeviceFree():
            inputs = list(mod.get_inputs(**input_setting))
        tensors = own_names(model)
    return {"format": "robust-kbench", "call": plan_forward_call(path, model, inputs, tensors)}


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------

def _write(out: Path, obj: Dict[str, Any]) -> bool:
    try:
        tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
        tmp.write_text(json.dumps(obj, indent=1, allow_nan=False) + "\n", encoding="utf-8")
        os.replace(tmp, out)
        return True
    except (OSError, ValueError) as e:
        sys.stderr.write(f"kernel_capture: cannot write {out}: {e}\n")
        return False


def _read_json(p: Optional[str], what: str) -> Optional[Dict[str, Any]]:
    if not p:
        return None
    try:
        with open(p, encoding="utf-8") as f:
            v = json.load(f)
    except OSError as e:
        raise CaptureError(f"{what} {p}: {e.strerror or e}") from None
    except ValueError as e:
        raise CaptureError(f"{what} {p}: not valid JSON ({e})") from None
    if not isinstance(v, dict):
        raise CaptureError(f"{what} {p}: not a JSON object")
    return v


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description="Capture how a ModelNew file (or a robust-kbench Model.forward) calls "
                                             "its CUDA extension; writes one JSON object to --out.")
    sub = ap.add_subparsers(dest="mode", required=True)
    m = sub.add_parser("modelnew", help="a KernelBench ModelNew file that uses load_inline")
    m.add_argument("file")
    m.add_argument("--task-json", required=True, help="the KernelSieve task the kernel is for")
    m.add_argument("--out", required=True)
    m.add_argument("--timeout", type=float, default=120.0, help="seconds before the capture is abandoned")
    f = sub.add_parser("forward-call", help="a robust-kbench func_forward.py: how Model.forward calls fn")
    f.add_argument("file")
    f.add_argument("--config", default="", help="config_forward.json (default: beside the file)")
    f.add_argument("--task-json", default="", help="the imported task (inputs and parameter names); default: "
                                                   "get_inputs(**input_setting) and the Model's own names")
    f.add_argument("--out", required=True)
    f.add_argument("--timeout", type=float, default=120.0, help="seconds before the capture is abandoned")
    args = ap.parse_args(argv)

    out = Path(args.out)
    path = Path(args.file)
    label = path.name
    # The captured file's prints must not matter: everything it writes goes to stderr.
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def on_timeout(signum: int, frame: Any) -> None:
        ok = _write(out, {"error": f"{label}: the capture did not finish within {args.timeout:g} s (--timeout)"})
        os._exit(0 if ok else 3)
    if args.timeout > 0:
        signal.signal(signal.SIGALRM, on_timeout)
        signal.setitimer(signal.ITIMER_REAL, args.timeout)

    try:
        if torch is None:
            raise CaptureError(_TORCH_ERROR)
        if not path.is_file():
            raise CaptureError("no such file")
        torch.set_num_threads(1)
        if args.mode == "modelnew":
            task = _read_json(args.task_json, "task")
            result = capture_modelnew(path, task or {})
        else:
            cfg = args.config or str(path.resolve().parent / "config_forward.json")
            result = capture_forward_call(path, _read_json(cfg, "config") or {}, _read_json(args.task_json, "task"))
    except CaptureError as e:
        result = {"error": f"{label}: {e}"}
    except _Refused as e:
        result = {"error": f"{label}: {e}"}
    except BaseException as e:  # noqa: BLE001 - whatever the captured file raises is its error
        result = {"error": f"{label}: {_exc_text(e, os.path.abspath(str(path)))}"}
    signal.setitimer(signal.ITIMER_REAL, 0)
    if not _write(out, result):
        return 3
    sys.stderr.write(f"kernel_capture: {result.get('error') or 'captured ' + result['call']['function']}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
