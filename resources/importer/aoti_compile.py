#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compile one KernelSieve task ahead of time with PyTorch Inductor: the "compiled" baseline.

``aoti_compile.py SPEC.json OUT.pt2``

Beside OUT.pt2 it extracts the package into OUT.pt2's folder as ``model/`` (the compiled
``*.so``, its metadata and, for CUDA, its cubins): the harness workers run sandboxed with a
read-only ``/tmp``, where LibTorch's package loader would unpack it, so they load the extracted
model with ``AOTIModelContainerRunnerCuda`` / ``...Cpu`` directly.

SPEC.json (written by ``kernelsieve-cli``, core/src/baselines/compiledbaseline.cpp):

    {"task": "L1-23", "entry": "forward", "device": "cuda" | "cpu",
     "source": "<TorchScript source>" | null,   # built-in and hand-written tasks
     "artifact": "/path/task.pt" | null,        # imported tasks: the traced TorchScript module
     "args": [{"name": "x", "shape": [16, 16384], "dtype": "float32"}, ...]}  # inputs, then params

The task is the same TorchScript function the engine runs (``entry(*inputs, *params)``), so the
compiled model takes the same tensors, parameters included (the engine draws them per seed). It
is turned into an ExportedProgram by torch's TorchScript converter (``TS2EPConverter``); a
TorchScript source the converter cannot take is run as Python and exported with
``torch.export.export`` instead. ``torch._inductor.aoti_compile_and_package`` then writes OUT.pt2,
which LibTorch's ``AOTIModelPackageLoader`` loads. Example tensors are random normals (zeros for
integer and bool tensors): the package is specialised to the shapes and dtypes, not to values.

The last line on stdout is one JSON object: ``{"ok": true, "export": "ts2ep" | "python",
"export_s": ..., "compile_s": ..., "torch": "2.11.0"}`` or ``{"ok": false, "stage": "load" |
"export" | "compile", "error": "..."}``. Exit status: 0 compiled, 2 the task could not be
exported or compiled, 3 bad arguments, 4 no torch.
"""

import json
import os
import sys
import time
import traceback

DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "bool")


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def last_line(e: BaseException) -> str:
    # InductorError wraps the compiler's own exception: name that one, and where it was raised
    # when it carries no message (a bare AssertionError).
    inner = getattr(e, "inner_exception", None) or e.__cause__
    if isinstance(inner, BaseException) and not str(e).strip(": ").strip():
        e = inner
    text = "".join(traceback.format_exception_only(type(e), e)).strip()
    frames = traceback.extract_tb(e.__traceback__) if e.__traceback__ else []
    where = f" (raised at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""
    # TorchScript puts its message on the lines after "RuntimeError:": keep the first few.
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    short = " ".join(lines[:4]) if lines else type(e).__name__
    if len(short) < 40:  # "AssertionError:" alone says nothing: say where
        short += where
    return short[:2000]


def example(torch, arg, device):
    dtype = getattr(torch, arg["dtype"])
    shape = [int(d) for d in arg["shape"]]
    if dtype.is_floating_point:
        return torch.randn(shape, device=device, dtype=torch.float32).to(dtype)
    return torch.zeros(shape, device=device, dtype=dtype)


def python_function(torch, source, entry):
    """The TorchScript source run as Python (it is a subset): its entry function."""
    import math
    import typing

    scope = {"torch": torch, "Tensor": torch.Tensor, "math": math, "F": torch.nn.functional,
             "List": typing.List, "Optional": typing.Optional, "Tuple": typing.Tuple}
    exec(compile(source, "<task source>", "exec"), scope)  # noqa: S102 - sandboxed by the caller
    fn = scope.get(entry)
    if not callable(fn):
        raise ValueError(f"the source defines no function '{entry}'")
    return fn


def export_python(torch, source, entry, example_args):
    """torch.export of the TorchScript source run as Python."""
    fn = python_function(torch, source, entry)

    class Task(torch.nn.Module):
        def forward(self, *a):
            return fn(*a)

    return torch.export.export(Task(), example_args)


def extract(package):
    """Unpacks the .so, its metadata and its cubins into <folder of package>/model (flat)."""
    import zipfile

    target = os.path.join(os.path.dirname(os.path.abspath(package)), "model")
    os.makedirs(target, exist_ok=True)
    found = False
    with zipfile.ZipFile(package) as z:
        for info in z.infolist():
            name = info.filename
            if "/data/aotinductor/model/" not in name or name.endswith("/"):
                continue
            base = os.path.basename(name)
            if not base or base.startswith("."):
                continue
            with z.open(info) as src, open(os.path.join(target, base), "wb") as dst:
                dst.write(src.read())
            found = found or base.endswith(".so")
    if not found:
        raise RuntimeError(f"the package {package} holds no compiled model (.so)")


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 3
    try:
        spec = json.loads(open(argv[1], encoding="utf-8").read())
        out = argv[2]
        entry = spec.get("entry") or "forward"
        device = spec.get("device") or "cuda"
        args = spec["args"]
        for a in args:
            if a.get("dtype") not in DTYPES:
                raise ValueError(f"argument {a.get('name')!r}: dtype {a.get('dtype')!r} is not one of {DTYPES}")
    except (OSError, ValueError, KeyError, TypeError) as e:
        say({"ok": False, "stage": "load", "error": f"bad spec {argv[1]}: {e}"})
        return 3
    try:
        import torch
        from torch._export.converter import TS2EPConverter
    except Exception as e:  # noqa: BLE001 - any import failure means no usable torch
        say({"ok": False, "stage": "load", "error": f"torch cannot be imported: {last_line(e)}"})
        return 4

    stage = "load"
    try:
        torch.manual_seed(0)
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise RuntimeError("no CUDA device is usable for compiling a CUDA baseline")
        example_args = tuple(example(torch, a, device) for a in args)
        if spec.get("artifact"):
            scripted = torch.jit.load(spec["artifact"], map_location=device)
            target = scripted if entry == "forward" else getattr(scripted, entry)
        else:
            source = spec.get("source") or ""
            scripted = torch.jit.CompilationUnit(source)
            target = getattr(scripted, entry)

        stage = "export"
        t0 = time.monotonic()
        how = "ts2ep"
        try:
            ep = TS2EPConverter(target, example_args).convert()
        except Exception as ts_error:  # noqa: BLE001 - fall back where the source allows
            if spec.get("artifact"):
                raise
            how = "python"
            try:
                ep = export_python(torch, spec.get("source") or "", entry, example_args)
            except Exception as py_error:  # noqa: BLE001
                raise RuntimeError(f"the TorchScript converter said: {last_line(ts_error)}; "
                                   f"torch.export said: {last_line(py_error)}") from py_error
        export_s = time.monotonic() - t0

        stage = "compile"
        t0 = time.monotonic()
        tmp = out[:-4] + ".partial.pt2" if out.endswith(".pt2") else out + ".partial.pt2"
        try:
            torch._inductor.aoti_compile_and_package(ep, package_path=tmp)
        except Exception as ts_compile_error:  # noqa: BLE001
            # The converter's graph can trip Inductor where torch.export's own does not: a
            # TorchScript source gets a second try through Python.
            if how != "ts2ep" or spec.get("artifact"):
                raise
            traceback.print_exc(file=sys.stderr)
            sys.stderr.write("retrying with torch.export of the source run as Python\n")
            try:
                ep = export_python(torch, spec.get("source") or "", entry, example_args)
                how = "python"
                torch._inductor.aoti_compile_and_package(ep, package_path=tmp)
            except Exception as py_error:  # noqa: BLE001
                raise RuntimeError(f"Inductor failed on the converted graph: {last_line(ts_compile_error)}; "
                                   f"and through torch.export: {last_line(py_error)}") from py_error
        os.replace(tmp, out)
        compile_s = time.monotonic() - t0
        extract(out)
    except Exception as e:  # noqa: BLE001 - every failure is the task's result, with its reason
        traceback.print_exc(file=sys.stderr)
        say({"ok": False, "stage": stage, "error": last_line(e)})
        return 2
    say({"ok": True, "export": how, "export_s": round(export_s, 3), "compile_s": round(compile_s, 3),
         "torch": torch.__version__.split("+")[0]})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
