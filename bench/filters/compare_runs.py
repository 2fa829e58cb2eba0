#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares two filter runs of the same tasks: flag counts per criterion and per filter-5 rule,
before and after, and every task whose verdict changed, with the reason.

    compare_runs.py BEFORE.csv AFTER.csv [--after-json AFTER.json] [--title T]

BEFORE/AFTER are `kernelsieve-cli filter --csv` files (any version: columns are found by name).
With --after-json (the same run's results file) each changed verdict of filters 5 and 6 is
explained from the stored reports: launch-bound, passes, efficiency, the rewrites, the
redundant nodes and whether they are major. Prints Markdown.
"""
import argparse
import csv
import json
import sys

CRITERIA = ["Output Range", "Output Std", "Output Axes", "Input Impact", "Baseline Inefficiency",
            "Redundant Computation", "Zeros Pass"]


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {r["Task ID"]: r for r in rows}


def flag(row, criterion):
    v = row.get(criterion, "")
    return None if v in ("", None) else v == "True"


def rules(row):
    """Filter 5's rules that flagged (rewrite, efficiency, passes) from baseline_reasons."""
    r = row.get("baseline_reasons", "") or ""
    return set(x for x in r.split("+") if x)


def fmt(x, digits=3):
    try:
        return f"{float(x):.{digits}g}"
    except (TypeError, ValueError):
        return str(x)


def explain5(task):
    ie = task.get("inefficiency") or {}
    if not ie:
        return "not run"
    parts = [f"eager {fmt(ie.get('eager_ms'))} ms", f"efficiency {fmt(ie.get('efficiency'))}",
             f"{fmt(ie.get('passes'))} passes"]
    if ie.get("unavoidable_bytes"):
        parts.append(f"{fmt(ie['unavoidable_bytes'] / 2**20)} MiB unavoidable")
    if ie.get("launch_bound"):
        parts.append(f"launch-bound ({ie.get('launches')} launches x {fmt(ie.get('launch_ms'))} ms)")
    best = ie.get("best_rule")
    if best:
        parts.append(f"best rewrite {best} {fmt(ie.get('best_speedup'))}x")
    unequal = [w["rule"] for w in ie.get("rewrites", []) if w.get("implemented") and not w.get("equal")]
    if unequal:
        parts.append("not equal: " + ", ".join(unequal))
    return "; ".join(parts)


def explain6(task):
    re_ = task.get("redundancy") or {}
    if not re_:
        return "not run"
    kinds = {}
    for n in re_.get("nodes", []):
        kinds.setdefault(n["kind"], []).append(n["op"].split("::")[-1])
    parts = [f"{k}: {', '.join(v)}" for k, v in kinds.items()]
    for u in re_.get("unused_arguments", []):
        parts.append(f"{u['name']} {u['reason']}")
    parts.append(f"{fmt(100 * (re_.get('flop_fraction') or 0))} % of FLOPs")
    return "; ".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--after-json")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    before, after = read_csv(a.before), read_csv(a.after)
    details = {}
    if a.after_json:
        details = {t["id"]: t for t in json.load(open(a.after_json))["tasks"]}
    common = [t for t in after if t in before]
    out = []
    if a.title:
        out.append(f"### {a.title}\n")
    out.append(f"{len(common)} tasks in both runs ({len(before)} before, {len(after)} after).\n")
    out.append("| criterion / rule | before | after |")
    out.append("|---|---:|---:|")
    for c in CRITERIA:
        b = sum(1 for t in common if flag(before[t], c))
        f = sum(1 for t in common if flag(after[t], c))
        bn = "not a criterion" if all(flag(before[t], c) is None for t in common) else str(b)
        out.append(f"| {c} | {bn} | {f} |")
        if c == "Baseline Inefficiency":
            for rule in ("rewrite", "efficiency", "passes"):
                rb = sum(1 for t in common if rule in rules(before[t]))
                ra = sum(1 for t in common if rule in rules(after[t]))
                only_b = sum(1 for t in common if rules(before[t]) == {rule})
                only_a = sum(1 for t in common if rules(after[t]) == {rule})
                out.append(f"| &nbsp;&nbsp;rule `{rule}` (alone) | {rb} ({only_b}) | {ra} ({only_a}) |")
    out.append("")
    for c in CRITERIA:
        changed = [t for t in common if flag(before[t], c) is not None and flag(before[t], c) != flag(after[t], c)]
        if not changed:
            continue
        out.append(f"**{c}: {len(changed)} verdicts changed**\n")
        out.append("| task | name | before | after | why (after) |")
        out.append("|---|---|---|---|---|")
        for t in changed:
            b, f = before[t], after[t]
            bv = ("FLAG " + "+".join(sorted(rules(b)))) if flag(b, c) else "ok"
            av = ("FLAG " + "+".join(sorted(rules(f)))) if flag(f, c) else "ok"
            if c != "Baseline Inefficiency":
                bv, av = ("FLAG" if flag(b, c) else "ok"), ("FLAG" if flag(f, c) else "ok")
            why = ""
            if t in details:
                why = explain5(details[t]) if c == "Baseline Inefficiency" else \
                      explain6(details[t]) if c == "Redundant Computation" else ""
            out.append(f"| {t} | {f['Task Name'][:40]} | {bv} | {av} | {why} |")
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
