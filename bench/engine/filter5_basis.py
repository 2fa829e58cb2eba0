#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Filter 5's efficiency verdicts over repeated runs of one suite, on two time bases: the eager time
(what the verdicts use) and the eager forward's CUDA-graph replay (`graph_ms`, measured since
2026-12-05 where the host's dispatch can be much of the eager time). Says, per basis, which tasks'
verdicts move between the runs, and how far each time moved.

Graph basis (as docs/inefficiency.md "Host dispatch" proposes): floor with one replayed kernel
(`graph_launch_ms`) in place of one eager launch, efficiency = that floor / graph_ms, launch-bound when
graph_ms <= 2 x launches x one replayed kernel. A task without graph_ms keeps its eager-basis verdict
on the graph basis too (marked `e`).

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


def graph_verdict(ie, min_eff):
    g, one = ie.get("graph_ms", 0), ie.get("graph_launch_ms", 0)
    if not (g > 0 and one > 0):
        return None
    launches = ie.get("launches", 0)
    floor = max(ie.get("memory_floor_ms", 0), ie.get("compute_floor_ms", 0), ie.get("serial_steps", 0) * one,
                one if launches > 0 else 0)
    eff = floor / g
    bound = g <= 2 * max(launches, 1) * one
    return eff, bound, not bound and eff < min_eff


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="+")
    ap.add_argument("--all", action="store_true", help="every task, not only those whose verdicts move")
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
        gv = [graph_verdict(ie, min_eff) for ie in ies]
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
    for basis in ("eager", "graph"):
        print(f"{basis} basis: {len(moved[basis])} verdict(s) move between the runs"
              + (f": {', '.join(moved[basis])}" if moved[basis] else ""))


if __name__ == "__main__":
    main()
