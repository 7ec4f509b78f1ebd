#!/usr/bin/env python3
"""union.py TRACE.json LOG.jsonl: the logged device_busy of every aggregate window beside the
offline figure from the run's own --trace: the kernel slices of each process merged (their
union), summed over the processes and capped at 1 (union-per-context, the tool's method on a
GPU, where contexts of separate processes take turns), and the plain union over every process.
Windows whose edges cut a batch count that batch's overlap either way; prints the means."""
import json
import sys

ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
by_pid = {}
for e in ev:
    if e.get("ph") == "X" and "kernel" in e.get("cat", "").split(","):
        by_pid.setdefault(e["pid"], []).append((e["ts"], e["ts"] + e["dur"]))


def union(ivs, a, b):
    tot, end = 0.0, a
    for s, e in sorted(ivs):
        s, e = max(s, end), min(e, b)
        if e > s:
            tot += e - s
            end = e
    return tot


rows = [json.loads(l) for l in open(sys.argv[2])]
agg = [r for r in rows if r.get("kind") == "aggregate" and r.get("device_busy") is not None]
out = []
for r in agg[1:-1]:  # whole windows only: not the first (start-up) nor the last (cut short)
    b = r["t_s"] * 1e6
    a = b - r["window_s"] * 1e6
    per = min(1.0, sum(union(v, a, b) for v in by_pid.values()) / (b - a))
    allu = union([iv for v in by_pid.values() for iv in v], a, b) / (b - a)
    out.append((r["device_busy"], per, allu))
n = len(out)
if not n:
    sys.exit("union.py: no whole window")
m = [sum(x[i] for x in out) / n for i in range(3)]
worst = max(abs(x[0] - x[1]) for x in out)
print("windows %d  device_busy %.3f  trace per-context %.3f  trace union %.3f  worst |log - per-context| %.3f"
      % (n, m[0], m[1], m[2], worst))
