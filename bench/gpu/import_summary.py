#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One line for an import's --jsonl log: files ok and failed, the slowest files with their seconds,
and each error. Usage: import_summary.py IMPORT.jsonl LABEL"""
import json
import sys


def main() -> int:
    events = []
    for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
        try:
            e = json.loads(line)
        except ValueError:
            continue  # the CLI's own messages on stderr share the log
        if isinstance(e, dict) and e.get("event") == "file":
            events.append(e)
    ok = sum(e.get("status") == "ok" for e in events)
    slow = sorted(events, key=lambda e: -float(e.get("seconds", 0) or 0))[:8]
    print(f"{sys.argv[2]} import: {ok} ok, {len(events) - ok} error; slowest: " +
          ", ".join(f"{e.get('id') or e.get('file')} {float(e.get('seconds', 0) or 0):.1f} s" for e in slow))
    for e in events:
        if e.get("status") != "ok":
            print(f"  error {e.get('file')}: {str(e.get('error'))[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
