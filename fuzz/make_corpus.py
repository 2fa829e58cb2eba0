#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seed corpora for the fuzz targets, from the repository's real files.

    fuzz/make_corpus.py OUT      writes OUT/seeds/<target>/<sha1> and OUT/dict/<target>.dict

Sources: tests/data/** (task specs, results, profiles, the kernel manifest, the hostile and bad
cases), resources/profiles and resources/suite, and the H200 results and bench files in bench/.
Large files are cut into the pieces the loaders also see on their own (a results file with one
task, a task entry as the worker protocol sends it, its analysis reports, the run object), and
of many similar pieces only one per structure is kept, so the corpus stays small (libFuzzer
mutates each seed in turn; 1 MB files would make every run slow). Files that are no valid JSON
(tests/data/bad/malformed.json) go to every target. The seeds are regenerated on every run and
never committed; fuzz/json.dict plus the keys and short strings of each target's seeds make its
dictionary.
"""
import hashlib
import json
import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGETS = ["results", "bench", "profile", "taskspec", "suite", "reports", "callplan", "manifest"]
MAX_SEED = 64 * 1024  # bytes; fuzz/run.sh passes the same -max_len
SUITE_SEP = "\n%%%\n"  # fuzz_suite.cpp splits its input into task files at this line


def sources():
    # bench/ first would let its long files win the per-structure slots; tests/data comes first.
    globs = ["tests/data/**/*.json", "resources/profiles/*.json", "resources/suite/**/*.json",
             "bench/**/*.json"]
    for g in globs:
        yield from sorted(ROOT.glob(g))


# Fields whose inside says nothing about the loader that holds them: a results task's spec is the
# taskspec target's business.
OPAQUE = {"spec", "source", "description"}


def shape(v, depth=0):
    """The structure of a JSON value (keys and types, not values): one seed per distinct one."""
    if depth > 6:
        return "..."
    if isinstance(v, dict):
        return "{" + ",".join(k + ":" + (type(v[k]).__name__ if k in OPAQUE else shape(v[k], depth + 1))
                              for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "[" + "|".join(sorted({shape(x, depth + 1) for x in v[:50]})) + "]"
    return type(v).__name__


class Corpus:
    def __init__(self, out):
        self.out = out
        shutil.rmtree(out / "seeds", ignore_errors=True)  # regenerated, so removed files go too
        self.seen_shapes = {t: set() for t in TARGETS}
        self.names = {t: set() for t in TARGETS}
        self.strings = {t: set() for t in TARGETS}
        for t in TARGETS:
            (out / "seeds" / t).mkdir(parents=True, exist_ok=True)

    def add_text(self, target, text):
        data = text.encode() if isinstance(text, str) else text
        if len(data) > MAX_SEED:
            return
        name = hashlib.sha1(data).hexdigest()
        if name not in self.names[target]:
            (self.out / "seeds" / target / name).write_bytes(data)
            self.names[target].add(name)

    def add(self, target, value, unique=True, indent=None):
        """A JSON value as a seed; with `unique`, only if its structure is new for the target."""
        if unique:
            s = shape(value)
            if s in self.seen_shapes[target]:
                return
            self.seen_shapes[target].add(s)
        self.collect_strings(target, value)
        self.add_text(target, json.dumps(value, indent=indent, allow_nan=True))

    def collect_strings(self, target, v):
        if isinstance(v, dict):
            for k, x in v.items():
                self.strings[target].add(k)
                self.collect_strings(target, x)
        elif isinstance(v, list):
            for x in v[:50]:
                self.collect_strings(target, x)
        elif isinstance(v, str) and 0 < len(v) <= 24 and v.isprintable():
            self.strings[target].add(v)

    def write_dicts(self):
        base = (ROOT / "fuzz" / "json.dict").read_text()
        (self.out / "dict").mkdir(parents=True, exist_ok=True)
        for t in TARGETS:
            lines = [base]
            for s in sorted(self.strings[t]):
                # libFuzzer's dictionary syntax: a quoted string with \\ and \" escaped, printable
                # ASCII only.
                if not s.isascii():
                    continue
                esc = s.replace("\\", "\\\\").replace('"', '\\"')
                lines.append(f'"\\"{esc}\\""')
            (self.out / "dict" / f"{t}.dict").write_text("\n".join(lines) + "\n")


def results_file(c, j, raw):
    if len(raw) <= MAX_SEED:
        c.add_text("results", raw)
    head = {k: v for k, v in j.items() if k != "tasks"}
    c.add("results", head, unique=False)
    if isinstance(j.get("run"), dict):
        c.add("results", j["run"])
        if isinstance(j["run"].get("ceilings"), dict):
            c.add("reports", j["run"]["ceilings"])
    for t in j.get("tasks", []):
        if not isinstance(t, dict):
            continue
        c.add("results", dict(head, tasks=[t]), indent=1)  # a results file of one task
        c.add("results", t)  # a worker protocol line
        for key in ("inefficiency", "redundancy"):
            if isinstance(t.get(key), dict):
                c.add("reports", t[key])
        if isinstance(t.get("spec"), dict):
            c.add("taskspec", t["spec"])


def bench_file(c, j, raw):
    if len(raw) <= MAX_SEED:
        c.add_text("bench", raw)
    head = {k: v for k, v in j.items() if k != "tasks"}
    for t in j.get("tasks", []):
        if isinstance(t, dict):
            c.add("bench", dict(head, tasks=[t]), indent=1)


def task_file(c, j, raw, tasks):
    c.add_text("taskspec", raw)
    c.collect_strings("taskspec", j)
    tasks.append(raw)
    call = j.get("kernel_call")
    if isinstance(call, dict) and "args" in call:
        c.add("callplan", call["args"], unique=False)


def manifest_file(c, j, raw):
    c.add_text("manifest", raw)
    c.collect_strings("manifest", j)
    # The fuzz target's folder holds one kernel, k.cu: point every entry at it, so that the
    # seeds reach past the file checks into the call plans.
    entries = j.get("kernels", [])
    redirected = [dict(e, file="k.cu") for e in entries if isinstance(e, dict)]
    for e in redirected:
        c.add("manifest", dict(j, kernels=[e]))
        if "args" in e:
            c.add("callplan", e["args"], unique=False)
    c.add("manifest", dict(j, kernels=redirected), unique=False)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    c = Corpus(pathlib.Path(sys.argv[1]))
    tasks = []
    for f in sources():
        raw = f.read_bytes()
        try:
            j = json.loads(raw)
        except ValueError:
            for t in TARGETS:  # hostile text: every loader must refuse it
                c.add_text(t, raw)
            continue
        kind = (j.get("schema") or j.get("kind")) if isinstance(j, dict) else None
        if kind == "kernelsieve.results":
            results_file(c, j, raw)
        elif kind == "kernelsieve.bench":
            bench_file(c, j, raw)
        elif kind == "kernelsieve.profile":
            c.add_text("profile", raw)
            c.collect_strings("profile", j)
        elif kind == "kernelsieve.task":
            task_file(c, j, raw, tasks)
        elif kind == "kernelsieve.kernels":
            manifest_file(c, j, raw)
        else:
            for t in TARGETS:
                c.add_text(t, raw)
    # Suites: neighbouring task files in twos and threes, and one task twice (a duplicate id).
    for i in range(0, len(tasks), 3):
        group = [t.decode() for t in tasks[i:i + 3]]
        c.add_text("suite", SUITE_SEP.join(group))
        c.add_text("suite", SUITE_SEP.join([group[0], group[0]]))
    # Call plans: the literal forms the manifest docs list, against fuzz_callplan.cpp's task.
    for args in (["x", "y", "weight", "bias"], [{"input": 0}, {"param": "weight"}, {"value": 1e-5}],
                 ["x", 3, True, None, [1, 2]], [{"input": "y"}]):
        c.add("callplan", args, unique=False)
    c.write_dicts()
    print("seeds: " + ", ".join(f"{t} {len(c.names[t])}" for t in TARGETS))


if __name__ == "__main__":
    main()
