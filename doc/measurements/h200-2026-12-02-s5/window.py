#!/usr/bin/env python3
"""window.py LOG.jsonl A B [A B ...]: the mean Mbit/s and device_busy of the aggregate windows
that end in [A, B) seconds, for each pair."""
import json
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
agg = [r for r in rows if r.get("kind") == "aggregate"]
out = []
for a, b in zip(sys.argv[2::2], sys.argv[3::2]):
    w = [r for r in agg if float(a) <= r.get("t_s", 0) < float(b)]
    m = sum(r["mbit_s"] for r in w) / len(w) if w else float("nan")
    busy = [r["device_busy"] for r in w if r.get("device_busy") is not None]
    out.append(f"[{a},{b}) {m:7.1f} Mbit/s" + (f" busy {sum(busy) / len(busy):.3f}" if busy else ""))
print("  ".join(out))
