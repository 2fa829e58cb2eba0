#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares the statistics of two filter runs of the same tasks, number by number: which metrics,
per-seed summaries and histograms are bit-identical, and the largest relative difference of those
that are not. Usage: compare_metrics.py A.json[.gz] B.json[.gz]"""
import gzip
import json
import math
import sys


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return {t["id"]: t for t in json.load(f)["tasks"]}


def numbers(t):
    """(name, value) of every statistic a task stores."""
    m = t.get("metrics", {})
    for crit in ("output_range", "output_std", "output_axes", "input_impact"):
        for k, v in sorted(m.get(crit, {}).items()):
            if isinstance(v, list):
                for i, x in enumerate(v):
                    yield f"{crit}.{k}[{i}]", x
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                yield f"{crit}.{k}", v
    for i, s in enumerate(t.get("seed_stats", [])):
        for k in ("mean", "std", "min", "max"):
            if k in s:
                yield f"seed{i}.{k}", s[k]


def same(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def rel(a, b):
    try:
        if a is None or b is None or math.isnan(a) or math.isnan(b):
            return math.inf
        d = abs(a - b)
        return d / max(abs(a), abs(b)) if d else 0.0
    except TypeError:
        return math.inf


a, b = load(sys.argv[1]), load(sys.argv[2])
common = [k for k in a if k in b]
kinds = {}
worst = (0.0, "")
hist_same = hist_diff = 0
for tid in common:
    na, nb = dict(numbers(a[tid])), dict(numbers(b[tid]))
    for name in na.keys() & nb.keys():
        kind = name.split(".", 1)[1] if name.startswith("seed") else name
        kind = kind.split("[")[0]
        c = kinds.setdefault(kind, [0, 0, 0.0])
        if same(na[name], nb[name]):
            c[0] += 1
        else:
            c[1] += 1
            r = rel(na[name], nb[name])
            c[2] = max(c[2], r)
            if r > worst[0]:
                worst = (r, f"{tid} {name}: {na[name]!r} vs {nb[name]!r}")
    for h in ("value_histogram", "std_histogram"):
        if a[tid].get(h) == b[tid].get(h):
            hist_same += 1
        else:
            hist_diff += 1
print(f"{len(common)} tasks in both ({len(a)} and {len(b)})")
print(f"{'statistic':28s} {'identical':>9s} {'differ':>7s} {'max rel diff':>13s}")
for k, (s, d, r) in sorted(kinds.items()):
    print(f"{k:28s} {s:9d} {d:7d} {r:13.3g}")
print(f"histograms (value and std, per task): {hist_same} identical, {hist_diff} differ")
if worst[1]:
    print(f"largest relative difference: {worst[0]:.3g} ({worst[1]})")
