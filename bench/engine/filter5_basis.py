#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Filter 5's efficiency verdicts over repeated runs of one suite, on two time bases: the eager time
(what the verdicts use) and the eager forward's CUDA-graph replay (`graph_ms`, measured since
2026-12-05 where the host's dispatch can be much of the eager time). Says, per basis, which tasks'
verdicts move between the runs, and how far each time moved.

Graph basis (as docs/inefficiency.md "Host dispatch" proposes, and as `onGraphReplay` in
core/src/analysisreports.cpp computes it for the borderline mark): floor with one replayed kernel
(`graph_launch_ms`) in place of one eager launch, efficiency = that floor / graph_ms, launch-bound when
graph_ms <= 2 x launches x one replayed kernel. `--kernel-limit`: launch-bound instead when graph_ms <=
one replayed kernel + 2 x (launches - 1) x each further kernel of a replay (`graph_kernel_ms`), a
tighter limit. A task without graph_ms keeps its eager-basis verdict on the graph basis too (marked `e`).

Usage: filter5_basis.py RUN1.json[.gz] RUN2.json[.gz] ... [--all]"""
import argparse
import gzip
import json


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def eager_verdict(ie, min_eff):
    """(efficiency, launch-bound, flagged) as the stored report has them (inefficiencyVerdict)."""
    eff, bound = ie.get("efficiency", 0), ie.get("launch_bound", False)
    return eff, bound, ie.get("eager_ms", 0) > 0 and not bound and eff < min_eff


def graph_verdict(ie, min_eff, kernel_limit=False):
    g, one, each = ie.get("graph_ms", 0), ie.get("graph_launch_ms", 0), ie.get("graph_kernel_ms", 0)
    if not (g > 0 and one > 0) or (kernel_limit and not each > 0):
        return None
    launches = ie.get("launches", 0)
    floor = max(ie.get("memory_floor_ms", 0), ie.get("compute_floor_ms", 0), ie.get("serial_steps", 0) * one,
                one if launches > 0 else 0)
    eff = floor / g
    bound = g <= (one + 2 * max(launches - 1, 0) * each if kernel_limit else 2 * max(launches, 1) * one)
    return eff, bound, not bound and eff < min_eff


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="+")
    ap.add_argument("--all", action="store_true", help="every task, not only those whose verdicts move")
    ap.add_argument("--kernel-limit", action="store_true",
                    help="graph basis: launch-bound by one replayed kernel + 2 x further kernels x graph_kernel_ms")
    a = ap.parse_args()
    runs = [load(p) for p in a.results]
    min_eff = runs[0]["thresholds"].get("baseline_efficiency", 0.05)
    order = [t["id"] for t in runs[0]["tasks"]]
    by = [{t["id"]: t.get("inefficiency") for t in r["tasks"]} for r in runs]
    moved = {"eager": [], "graph": []}
    measured = 0
    rows = []
    for tid in order:
        ies = [b.get(tid) for b in by]
        if any(ie is None or ie.get("error") for ie in ies):
            continue
        ev = [eager_verdict(ie, min_eff) for ie in ies]
        gv = [graph_verdict(ie, min_eff, a.kernel_limit) for ie in ies]
        measured += all(v is not None for v in gv)
        gv2 = [g if g is not None else e for g, e in zip(gv, ev)]
        e_moves = len({v[2] for v in ev}) > 1
        g_moves = len({v[2] for v in gv2}) > 1
        if e_moves:
            moved["eager"].append(tid)
        if g_moves:
            moved["graph"].append(tid)
        if a.all or e_moves or g_moves:
            rows.append((tid, ies, ev, gv, gv2))
    print(f"{len(runs)} runs of {runs[0]['run'].get('suite', '?')}, {len(order)} tasks, min efficiency {min_eff}; "
          f"graph replay measured in every run for {measured}")
    for tid, ies, ev, gv, gv2 in rows:
        eag = " ".join(f"{ie.get('eager_ms', 0):.3f}" for ie in ies)
        gra = " ".join(f"{ie.get('graph_ms', 0):.3f}" for ie in ies)
        fe = " ".join(("FLAG" if v[2] else "ok") + ("/lb" if v[1] else "") + f" {v[0]:.3f}" for v in ev)
        fg = " ".join(("FLAG" if v[2] else "ok") + ("/lb" if v[1] else "") + f" {v[0]:.3f}" + ("" if g else " e")
                      for v, g in zip(gv2, gv))
        print(f"{tid}: {ies[0].get('launches', 0)} launches; eager ms {eag}; graph ms {gra}")
        print(f"    eager basis: {fe}")
        print(f"    graph basis: {fg}")
    # How far each time moved between the runs (max / min over the runs), where every run measured both.
    spreads = []
    for tid in order:
        ies = [b.get(tid) for b in by]
        if any(ie is None or ie.get("error") for ie in ies):
            continue
        e = [ie.get("eager_ms", 0) for ie in ies]
        g = [ie.get("graph_ms", 0) for ie in ies]
        if len(ies) > 1 and min(e) > 0 and min(g) > 0:
            spreads.append((max(e) / min(e), max(g) / min(g), tid))
    if spreads:
        spreads.sort()
        med = lambda xs: sorted(xs)[len(xs) // 2]
        worst_e = max(spreads)
        worst_g = max(spreads, key=lambda x: x[1])
        print(f"run-to-run spread (max/min) over {len(spreads)} tasks with both times: eager median "
              f"{med([x[0] for x in spreads]):.2f}, most {worst_e[0]:.2f} ({worst_e[2]}); graph median "
              f"{med([x[1] for x in spreads]):.2f}, most {worst_g[1]:.2f} ({worst_g[2]})")
    for basis in ("eager", "graph"):
        print(f"{basis} basis: {len(moved[basis])} verdict(s) move between the runs"
              + (f": {', '.join(moved[basis])}" if moved[basis] else ""))


if __name__ == "__main__":
    main()
