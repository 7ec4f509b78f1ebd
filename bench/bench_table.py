#!/usr/bin/env python3
"""bench_table.py OUTDIR: bench/gpu_bench.sh's raw logs as one table: every arrangement as
Mbit/s and as a share of the ceiling calibrated in the same run. Means over every window but the
first."""
import glob
import json
import os
import re
import sys

OUT = sys.argv[1]


def load(name):
    path = os.path.join(OUT, name + ".jsonl")
    return [json.loads(l) for l in open(path) if l.strip()] if os.path.exists(path) else []


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else float("nan")


def summary(name):
    rows = load(name)
    agg = [r for r in rows if r["kind"] == "aggregate"][1:]
    wk = [r for r in rows if r["kind"] == "worker" and r.get("state") == "running"][1:]
    return (mean([r["mbit_s"] for r in agg]), mean([r.get("device_busy") for r in agg]),
            mean([r.get("gen_busy") for r in wk]))


print(open(os.path.join(OUT, "env.txt")).read().strip())
print()
print("| size, dtype | arrangement | Mbit/s | of ceiling | device busy | gen threads busy |")
print("|---|---|---:|---:|---:|---:|")
for tag in ("100000-f64", "100000-f32", "1000000-f64"):
    ceil = [r.get("ceiling") for r in load(tag + "-ceiling") if r["kind"] == "aggregate" and r.get("ceiling")]
    ceil = ceil[0] if ceil else float("nan")
    print("| %s | ceiling (--calibrate) | %.1f | 1.000 | | |" % (tag, ceil))
    for line in open(os.path.join(OUT, "ref-%s.txt" % tag)) if os.path.exists(os.path.join(OUT, "ref-%s.txt" % tag)) else []:
        m = re.search(r"queues=(\d+) .* mbit_s=([\d.]+)", line)
        if m:
            print("| %s | plain reference loop, %s queue(s) | %s | %.3f | | |" % (tag, m.group(1), m.group(2),
                                                                          float(m.group(2)) / ceil))
    names = sorted(os.path.basename(p)[:-6] for p in glob.glob(os.path.join(OUT, tag + "-*.jsonl")))
    for name in names:
        if name.endswith("-ceiling"):
            continue
        mb, busy, gen = summary(name)
        label = name[len(tag) + 1:]
        label = re.sub(r"pipe-(\d+)x(\d+)x(\d+)", r"pipelined \1 worker(s) x \2 queues x \3 gen threads", label)
        label = re.sub(r"seed-(\d+)", r"seed, \1 worker(s)", label).replace("konly-1x4", "kernel-only, 1 x 4 queues")
        label = label.replace("-off", ", --profile off")
        print("| %s | %s | %.1f | %.3f | %.3f | %s |" % (tag, label, mb, mb / ceil, busy,
                                                     "%.2f" % gen if gen == gen else ""))
sup = os.path.join(OUT, "supervisor.txt")
if os.path.exists(sup):
    print()
    print(open(sup).read().rstrip())
print()
print("Generator and ring, on this host (`bench_core`):")
print()
print("```")
print(open(os.path.join(OUT, "core.txt")).read().rstrip())
print("```")
