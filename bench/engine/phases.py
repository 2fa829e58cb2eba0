#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a filter run's time went: sums of the per-task phases (results JSON `timings.phases_s`),
the slowest tasks with their breakdown, and peak host memory. Usage: phases.py RESULTS.json [--top N]"""
import argparse
import gzip
import json

ap = argparse.ArgumentParser()
ap.add_argument("results")
ap.add_argument("--top", type=int, default=10)
a = ap.parse_args()
r = json.load(gzip.open(a.results, "rt") if a.results.endswith(".gz") else open(a.results))
tasks = r["tasks"]
tot = {}
for t in tasks:
    for k, v in t["timings"].get("phases_s", {}).items():
        tot[k] = tot.get(k, 0) + (v or 0)
wall = sum(t["timings"].get("wall_s") or 0 for t in tasks)
print(f"{len(tasks)} tasks, run total {r['run'].get('total_s', 0):.1f} s, sum of task walls {wall:.1f} s")
print("phases (s): " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(tot.items())))
tim = [t["timings"] for t in tasks]
print(f"operand draws {sum(x.get('operand_draws', 0) for x in tim)}, reuses {sum(x.get('operand_reuses', 0) for x in tim)}, "
      f"redraws {sum(x.get('operand_redraws', 0) for x in tim)}, served from device copies "
      f"{sum(x.get('operand_device_reuses', 0) for x in tim)} (most kept "
      f"{max([x.get('peak_operand_device_kept_bytes', 0) for x in tim] + [0]) / 2**30:.2f} GiB)")
ph = max(tasks, key=lambda t: t["timings"].get("peak_host_bytes", 0))
print(f"peak host RSS: {ph['timings'].get('peak_host_bytes', 0) / 2**30:.2f} GiB ({ph['id']}, per task: "
      f"{ph['timings'].get('peak_host_per_task')}); largest operand set "
      f"{max(x.get('operand_set_bytes', 0) for x in tim) / 2**30:.2f} GiB; most operand bytes held "
      f"{max(x.get('peak_operand_host_bytes', 0) for x in tim) / 2**30:.2f} GiB; pinned cache freed "
      f"{sum(x.get('pinned_cache_freed_bytes', 0) for x in tim) / 2**30:.2f} GiB in "
      f"{sum(1 for x in tim if x.get('pinned_cache_freed_bytes', 0) > 0)} trims")
ends = [x for x in tim if x.get("end_rss_anon_bytes")]
if ends:  # what the worker kept from task to task (files from 2026-12-05 on)
    gib = lambda k: [x.get(k, 0) / 2**30 for x in ends]
    anon, fil, held, used = (gib(k) for k in ("end_rss_anon_bytes", "end_rss_file_bytes",
                                               "end_pinned_held_bytes", "end_pinned_in_use_bytes"))
    print(f"at the tasks' ends: anonymous resident {anon[0]:.2f} (first) -> {anon[-1]:.2f} GiB (last), most "
          f"{max(anon):.2f}; mapped from files {fil[0]:.2f} -> {fil[-1]:.2f}, most {max(fil):.2f}; page-locked "
          f"held {held[0]:.2f} -> {held[-1]:.2f}, most {max(held):.2f} (in use for tasks ahead at most {max(used):.2f}); "
          f"anonymous less page-locked {anon[0] - held[0]:.2f} -> {anon[-1] - held[-1]:.2f} GiB")
res = [(t["id"], t["timings"]["end_device_reserved_bytes"] / 2**30) for t in tasks
       if t["timings"].get("end_device_reserved_bytes")]
if res:  # the caching allocator's device memory (files from 2026-12-06's twenty-sixth session on)
    most = max(res, key=lambda r: r[1])
    print(f"device memory the caching allocator held at the tasks' ends: {res[0][1]:.2f} (first) -> "
          f"{res[-1][1]:.2f} GiB (last), most {most[1]:.2f} ({most[0]})")
print(f"\nslowest {a.top}:")
keys = ["statistics", "redundancy", "inefficiency", "draw", "draw_wait", "upload"]
print(f"{'task':8s} {'wall':>6s} " + " ".join(f"{k[:9]:>9s}" for k in keys) + "  host GiB")
for t in sorted(tasks, key=lambda t: -(t["timings"].get("wall_s") or 0))[: a.top]:
    p = t["timings"].get("phases_s", {})
    print(f"{t['id']:8s} {t['timings'].get('wall_s', 0):6.2f} " + " ".join(f"{p.get(k, 0):9.2f}" for k in keys)
          + f"  {t['timings'].get('peak_host_bytes', 0) / 2**30:6.2f}")
