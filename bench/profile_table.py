#!/usr/bin/env python3
"""profile_table.py OUTDIR: the tables of doc/PERFORMANCE.md from bench/gpu_profile.sh's raw
output. Means are over every window but the first (start-up)."""
import glob
import json
import os
import re
import sys

OUT = sys.argv[1]


def rows(name):
    path = os.path.join(OUT, name + ".jsonl")
    if not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path) if l.strip()]


def ratio(a, b):
    return a / b if b else float("nan")


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else float("nan")


def agg(name, key="mbit_s"):
    a = [r for r in rows(name) if r["kind"] == "aggregate"][1:]
    return mean([r.get(key) for r in a])


def worker(name, key):
    w = [r for r in rows(name) if r["kind"] == "worker" and r.get("state") == "running"]
    return mean([r.get(key) for r in w[1:]])


ref = {}
for line in open(os.path.join(OUT, "ref.txt")):
    m = re.match(r"ref_loop (\w+) queues=(\d+) dtype=(\w+) .* mbit_s=([\d.]+)", line)
    if m:
        ref[(m.group(1), int(m.group(2)), m.group(3))] = float(m.group(4))

print(open(os.path.join(OUT, "env.txt")).read().strip())
print()
print("## The plain reference loop (Mbit/s-equivalent, 100000 symbols, 10 launches per batch)")
print()
print("| loop | f64 | f32 |")
print("|---|---|---|")
for v, q, label in [("plain", 1, "no profiling, clFinish per batch, 1 queue"),
                    ("profq", 1, "queue with CL_QUEUE_PROFILING_ENABLE, no events"),
                    ("events", 1, "an event on every launch, read each batch"),
                    ("lastevent", 1, "an event on the last launch only"),
                    ("plain", 2, "no profiling, 2 queues"), ("plain", 4, "no profiling, 4 queues"),
                    ("plain", 8, "no profiling, 8 queues")]:
    print("| %s | %.1f | %.1f |" % (label, ref.get((v, q, "f64"), float("nan")), ref.get((v, q, "f32"), float("nan"))))
print()
print("## kernel-only, 1 worker: the tool against the plain loop")
print()
print("| dtype | queues | profile | Mbit/s | / plain loop, same queues | device_busy | kernel_busy |")
print("|---|---|---|---|---|---|---|")
for dt in ("f64", "f32"):
    for q in (1, 2, 4, 8):
        for p in ("off", "sampled", "full"):
            name = "konly-%s-%s-q%d" % (dt, p, q)
            if not rows(name):
                continue
            m = agg(name)
            base = ref.get(("plain", q, dt), float("nan"))
            print("| %s | %d | %s | %.1f | %.3f | %.3f | %.3f |" % (dt, q, p, m, ratio(m, base), agg(name, "device_busy"),
                                                                 worker(name, "kernel_busy")))
print()
print("## --calibrate against the best plain multi-queue loop")
print()
print("| dtype | ceiling | best plain loop (queues) | ratio |")
print("|---|---|---|---|")
for dt in ("f64", "f32"):
    c = [r.get("ceiling") for r in rows("calib-" + dt) if r["kind"] == "aggregate"]
    c = c[0] if c else float("nan")
    best = max((v, q) for (k, q, d), v in ref.items() if k == "plain" and d == dt)
    print("| %s | %.1f | %.1f (%d) | %.3f |" % (dt, c, best[0], best[1], ratio(c, best[0])))
print()
print("## seed mode (f64): profiling policies, and sampled against full on the same workload")
print()
print("| workers | profile | Mbit/s | / off | device_busy | kernel_busy | gap_kernel_us | gap_batch_us | queue_wait_us |")
print("|---|---|---|---|---|---|---|---|---|")
for n in (1, 16):
    off = agg("seed-f64-off-n%d" % n)
    for p in ("off", "sampled", "full"):
        name = "seed-f64-%s-n%d" % (p, n)
        print("| %d | %s | %.1f | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f |" % (
            n, p, agg(name), ratio(agg(name), off), agg(name, "device_busy"), worker(name, "kernel_busy"),
            worker(name, "gap_kernel_us"), worker(name, "gap_batch_us"), worker(name, "queue_wait_us")))
print()
print("## kernel-only 1 worker, sampled against full (same workload)")
print()
print("| dtype | profile | device_busy | kernel_busy | gap_kernel_us | gap_batch_us |")
print("|---|---|---|---|---|---|")
for dt in ("f64", "f32"):
    for p in ("sampled", "full"):
        name = "konly-%s-%s-q1" % (dt, p)
        print("| %s | %s | %.3f | %.3f | %.2f | %.2f |" % (dt, p, agg(name, "device_busy"), worker(name, "kernel_busy"),
                                                         worker(name, "gap_kernel_us"), worker(name, "gap_batch_us")))
for s in ("konly", "seed", "pipe"):
    path = os.path.join(OUT, "sweep-%s.txt" % s)
    if os.path.exists(path):
        print()
        print("## sweep: %s" % s)
        print()
        print("```")
        print(open(path).read().rstrip())
        print("```")
