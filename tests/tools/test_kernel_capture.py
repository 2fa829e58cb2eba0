#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tests of resources/importer/kernel_capture.py (ModelNew and robust-kbench call capture) and of
resources/importer/robust_kbench_export.py, on the CPU with no GPU and nothing compiled.

Run: python3 tests/tools/test_kernel_capture.py [NAME...]  (a Python with torch; exit 77 = skipped
without it; NAMEs select tests whose name contains one of them).
Fixtures: tests/data/modelnew_fixture (ModelNew files + add_task.json; the three the GPU corpus runs too
are in tests/data/external/modelnew),
tests/data/robust_kbench_fixture (task folders relu, linear, broken), built-in tasks under
resources/suite. Every case runs the scripts as subprocesses, as kernelsieve-cli does.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CAPTURE = ROOT / "resources" / "importer" / "kernel_capture.py"
RK_EXPORT = ROOT / "resources" / "importer" / "robust_kbench_export.py"
MODELNEW = ROOT / "tests" / "data" / "modelnew_fixture"
# The ModelNew files the GPU corpus also runs live there only (relu_honest, gemm_params, relu_then_torch).
CORPUS_MODELNEW = ROOT / "tests" / "data" / "external" / "modelnew"
RK = ROOT / "tests" / "data" / "robust_kbench_fixture"
SUITE = ROOT / "resources" / "suite"
L1_19 = SUITE / "level1" / "L1-19_relu.json"
L2_12 = SUITE / "level2" / "L2-12_gemm_multiply_leakyrelu.json"
PY = sys.executable

try:
    import torch  # noqa: F401
except ImportError:
    print(f"SKIPPED: {PY} has no torch; run this with the Python kernelsieve was built against")
    sys.exit(77)

TMP = Path(tempfile.mkdtemp(prefix="ks_capture_test_"))
RESULTS = []


def run_capture(*args, expect_rc=0, out=None):
    out = Path(out) if out else TMP / f"result_{len(RESULTS)}.json"
    p = subprocess.run([PY, str(CAPTURE), *map(str, args), "--out", str(out)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == expect_rc, f"kernel_capture {args}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    assert p.stdout == "", f"kernel_capture wrote to stdout: {p.stdout!r}"
    if expect_rc != 0:
        return None, p
    text = out.read_text()
    result = json.loads(text)
    assert isinstance(result, dict)
    RESULTS.append((args, result))
    return result, p


def fixture(name):
    return MODELNEW / name if (MODELNEW / name).exists() else CORPUS_MODELNEW / name


def modelnew(name, task):
    return run_capture("modelnew", fixture(name) if not isinstance(name, Path) else name, "--task-json", task)[0]


def error_of(result):
    assert set(result) == {"error"}, f"expected an error, got {json.dumps(result)[:400]}"
    return result["error"]


def write(name, text):
    p = TMP / name
    p.write_text(textwrap.dedent(text))
    return p


# A ModelNew header shared by the inline cases: a recorded extension with two functions.
HEADER = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline
ext = load_inline(name="ext", cpp_sources="torch::Tensor f(torch::Tensor x);", cuda_sources="/* kernels */",
                  functions=["f", "g"])
'''


def test_add_honest():
    r = modelnew("add_honest.py", MODELNEW / "add_task.json")
    assert r["format"] == "modelnew"
    assert r["module_name"] == "elementwise_add"
    assert r["functions"] == ["elementwise_add_cuda"]
    assert r["cpp_sources"] == "torch::Tensor elementwise_add_cuda(torch::Tensor a, torch::Tensor b);"
    assert "__global__ void elementwise_add_kernel" in r["cuda_sources"]
    assert r["extra_cflags"] == [] and r["extra_cuda_cflags"] == []  # [""] dropped
    assert "extra_ldflags" not in r  # only written when non-empty
    assert r["call"] == {"function": "elementwise_add_cuda", "args": [{"input": 0}, {"input": 1}]}
    assert "print must not" not in json.dumps(r)


def test_relu_honest_list_sources_dict_functions():
    r = modelnew("relu_honest.py", L1_19)
    assert r["module_name"] == "relu_ext"
    assert r["functions"] == ["relu_cuda"]  # from a dict
    assert r["cpp_sources"] == "torch::Tensor relu_cuda(torch::Tensor x);"  # a one-element list
    assert r["extra_cuda_cflags"] == ["-O3"]
    assert r["call"] == {"function": "relu_cuda", "args": [{"input": 0}]}  # x.cuda() and x.dim() pass


def test_relu_then_torch_refused():
    e = error_of(modelnew("relu_then_torch.py", L1_19))
    assert e.startswith("relu_then_torch.py: "), e
    assert "torch.relu" in e and "line 44" in e, e


def test_gemm_params_by_shape():
    r = modelnew("gemm_params.py", L2_12)
    assert r["call"] == {"function": "gemm_mul_leaky_cuda",
                         "args": [{"input": 0}, {"param": "linear_weight"}, {"param": "linear_bias"},
                                  {"value": 2.0}, {"value": 0.1}]}, r["call"]
    assert r["extra_cuda_cflags"] == ["-O3"]


def test_load_refused():
    e = error_of(modelnew("load_from_file.py", L1_19))
    assert "cpp_extension.load(" in e and "line 7" in e and "load_inline" in e, e


def test_params_by_exact_name():
    p = write("exact.py", HEADER + '''
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear_bias = nn.Parameter(torch.zeros(512))
        self.other = nn.Parameter(torch.zeros(512))   # same shape, but the name decides
    def forward(self, x):
        return ext.f(x, self.linear_bias, None, True, [1, 2])
''')
    r = modelnew(p, L2_12)
    assert r["call"]["args"] == [{"input": 0}, {"param": "linear_bias"}, {"value": None}, {"value": True},
                                 {"value": [1, 2]}], r


def test_refusals():
    cases = {
        "two_calls.py": ('''
class ModelNew(nn.Module):
    def forward(self, x):
        y = ext.f(x)
        return ext.g(y)
''', ["a second time", "ext.g (line 11)", "ext.f (line 10)"]),
        "made_in_forward.py": ('''
class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        return ext.f(x, out)
''', ["torch.empty_like", "line 10"]),
        "returns_tuple.py": ('''
class ModelNew(nn.Module):
    def forward(self, x):
        return (ext.f(x),)
''', ["returns a tuple", "ext.f"]),
        "no_call.py": ('''
class ModelNew(nn.Module):
    def forward(self, x):
        return x
''', ["does not call the extension"]),
        "kwargs.py": ('''
class ModelNew(nn.Module):
    def forward(self, x):
        return ext.f(x=x)
''', ["keyword arguments"]),
        "to_cpu.py": ('''
class ModelNew(nn.Module):
    def forward(self, x):
        return ext.f(x.cpu())
''', ["Tensor.cpu", "line 10"]),
        "plain_attr.py": ('''
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.ones(3)
    def forward(self, x):
        return ext.f(x, self.table)
''', ["argument 2", "neither a forward input nor a parameter"]),
        "unknown_param.py": ('''
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(7, 3))
    def forward(self, x):
        return ext.f(x, self.w)
''', ["'w'", "no counterpart in task L1-19"]),
        "size_literal.py": ('''
class ModelNew(nn.Module):
    def forward(self, x):
        return ext.f(x, x.size(1))
''', ["16384", "Tensor.size"]),
        "unknown_function.py": ('''
class ModelNew(nn.Module):
    def forward(self, x):
        return ext.h(x)
''', ["binds no function 'h'"]),
        "syntax.py": ('''
class ModelNew(nn.Module)
    pass
''', ["SyntaxError", "line 8"]),
        "caught_exceptions.py": ('''
class ModelNew(nn.Module):
    def forward(self, x):
        y = ext.f(x)
        try:
            return torch.relu(y)
        except Exception:
            return y
''', ["torch.relu"]),
    }
    for name, (body, needles) in cases.items():
        e = error_of(modelnew(write(name, HEADER + body), L1_19))
        assert e.startswith(name + ": "), e
        for n in needles:
            assert n in e, f"{name}: expected {n!r} in {e!r}"


def test_no_modelnew_and_bad_task():
    e = error_of(modelnew(write("no_model.py", HEADER), L1_19))
    assert "defines no class ModelNew" in e, e
    e = error_of(run_capture("modelnew", MODELNEW / "add_honest.py", "--task-json", TMP / "missing.json")[0])
    assert "missing.json" in e, e
    e = error_of(run_capture("modelnew", TMP / "missing.py", "--task-json", L1_19)[0])
    assert "no such file" in e, e


def test_unwritable_result_is_nonzero():
    run_capture("modelnew", MODELNEW / "add_honest.py", "--task-json", MODELNEW / "add_task.json",
                out="/nonexistent/dir/result.json", expect_rc=3)


def test_init_inputs_from_task_json():
    task = json.loads(L2_12.read_text())
    task["import"] = {"init_inputs": [1024, 512, 3.0, 0.2]}
    tj = TMP / "l2_12_imported.json"
    tj.write_text(json.dumps(task))
    r = modelnew("gemm_params.py", tj)
    assert r["call"]["args"][3:] == [{"value": 3.0}, {"value": 0.2}], r["call"]


def test_forward_call():
    r, _ = run_capture("forward-call", RK / "linear" / "func_forward.py")
    assert r == {"format": "robust-kbench",
                 "call": {"function": "forward", "args": [{"input": 0}, {"param": "weight"}, {"param": "bias"},
                                                          {"value": 0.5}]}}, r
    r, _ = run_capture("forward-call", RK / "relu" / "func_forward.py")
    assert r["call"] == {"function": "forward", "args": [{"input": 0}]}, r
    e = error_of(run_capture("forward-call", RK / "broken" / "func_forward.py")[0])
    assert "SyntaxError" in e and "line 7" in e, e


def test_robust_kbench_export():
    out = TMP / "rk_suite"
    p = subprocess.run([PY, str(RK_EXPORT), str(RK), "--out", str(out), "--jobs", "2", "--device", "cpu"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    events = [json.loads(line) for line in p.stdout.splitlines()]
    assert events[0]["event"] == "start" and events[0]["total"] == 3, events[0]
    files = {e["file"]: e for e in events if e["event"] == "file"}
    assert set(files) == {"relu", "linear", "broken"}, files
    assert files["broken"]["status"] == "error" and "SyntaxError" in files["broken"]["error"], files["broken"]
    assert not (out / "broken").exists()
    assert events[-1] == {**events[-1], "event": "done", "ok": 2, "failed": 1, "total": 3}, events[-1]

    lin = json.loads((out / "linear" / "linear.json").read_text())
    assert lin["id"] == "RK-linear" and lin["name"] == "linear" and lin["level"] == 0, lin
    assert lin["tags"] == ["imported", "robust-kbench"]
    assert lin["source_file"] == "func_forward.py" and (out / "linear" / "func_forward.py").is_file()
    assert lin["artifact"] == "linear.pt"
    assert lin["dims"] == {"full": {"batch_size": 24, "in_features": 48, "out_features": 40}}, lin["dims"]
    assert [s["name"] for s in lin["inputs"]] == ["x"]
    assert [s["name"] for s in lin["params"]] == ["weight", "bias"]
    assert lin["output"] == {"shape": [24, 40], "dtype": "float32"}
    assert lin["kernel_call"] == {"function": "forward", "args": [{"input": 0}, {"param": "weight"},
                                                                  {"param": "bias"}, {"value": 0.5}]}
    imp = lin["import"]
    assert imp["format"] == "robust-kbench" and imp["folder"] == str((RK / "linear").resolve())
    assert imp["config"]["input"] == {"batch_size": 24, "in_features": 48}, imp["config"]
    assert imp["config"]["init"] == {"out_features": 40, "scale": 0.5, "in_features": 48}, imp["config"]
    assert imp["kernel_file"] == str((RK / "linear" / "forward.cu").resolve())
    assert imp["rng_compatible"] is True, imp

    relu = json.loads((out / "relu" / "relu.json").read_text())
    assert relu["id"] == "RK-relu" and relu["category"] == "activation" and relu["params"] == []
    assert relu["kernel_call"] == {"function": "forward", "args": [{"input": 0}]}
    assert any("multi" not in n for n in relu["import"]["notes"]) or relu["import"]["notes"] == []

    # The artifact is Model(**init)(x, fn=forward_fn) with the parameters explicit: same numbers as
    # robust-kbench's own calls for seed 0 (inputs first, then the model).
    import importlib.util
    spec = importlib.util.spec_from_file_location("rk_linear", RK / "linear" / "func_forward.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    torch.manual_seed(0)
    x, = mod.get_inputs(batch_size=24, in_features=48)
    model = mod.Model(out_features=40, scale=0.5, in_features=48)
    expected = model(x, fn=mod.forward_fn)
    art = torch.jit.load(str(out / "linear" / "linear.pt"))
    got = art(x, model.weight.detach(), model.bias.detach())
    assert torch.allclose(got, expected, atol=1e-6, rtol=1e-5)

    # forward-call against the exported spec names the same parameters.
    r, _ = run_capture("forward-call", RK / "linear" / "func_forward.py", "--task-json", out / "linear" / "linear.json")
    assert r["call"] == lin["kernel_call"], r

    # --tasks and one task folder as PATH.
    out2 = TMP / "rk_one"
    p = subprocess.run([PY, str(RK_EXPORT), str(RK / "relu"), "--out", str(out2), "--device", "cpu"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0 and (out2 / "relu" / "relu.json").is_file(), p.stdout + p.stderr
    p = subprocess.run([PY, str(RK_EXPORT), str(RK), "--out", str(TMP / "rk_none"), "--tasks", "nomatch*"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 3 and '"fatal"' in p.stdout, p.stdout


def main():
    tests = [(n, f) for n, f in globals().items() if n.startswith("test_") and callable(f)
             and (len(sys.argv) < 2 or any(a in n for a in sys.argv[1:]))]  # optional name filters
    failed = 0
    for name, f in tests:
        try:
            f()
            print(f"ok    {name}")
        except Exception as e:  # noqa: BLE001
            failed += 1
            print(f"FAIL  {name}: {type(e).__name__}: {e}")
    if os.environ.get("KS_CAPTURE_SHOW"):
        for args, r in RESULTS:
            print(json.dumps([str(a) for a in args]), json.dumps(r)[:300])
    print(f"{len(tests) - failed} of {len(tests)} passed" + (f" (work folder kept: {TMP})" if failed else ""))
    if not failed:
        shutil.rmtree(TMP, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
