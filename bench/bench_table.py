#!/usr/bin/env python3
"""bench_table.py OUTDIR: bench/gpu_bench.sh's raw logs as one table. For each arrangement:
Mbit/s, of_ceiling, device_busy and the observer_share the tool reports under the default
profiling, beside the same arrangement under --profile off and the share actually lost
(1 - sampled / off). Means over the steady windows (the second half of each run) and over the
repetitions. The ceiling is the higher of the two calibrations of the run (before and after);
a rate above it is marked: the ceiling is then stale, and of_ceiling cannot be judged."""
import glob
import os
import re
import sys

from summarize import mean, rows

OUT = sys.argv[1]
SEC = float(open(os.path.join(OUT, "env.txt")).read().split("seconds per run: ")[1].split()[0])


def run_summary(path):
    r = rows(path)
    agg = [x for x in r if x.get("kind") == "aggregate" and x.get("t_s", 0) > SEC / 2]
    wk = [x for x in r if x.get("kind") == "worker" and x.get("observer_share") is not None]
    return (mean([x.get("mbit_s") for x in agg]), mean([x.get("device_busy") for x in agg]),
            mean([x.get("observer_share") for x in wk if x.get("t_s", 0) > SEC / 2]))


def arrangement(dt, tag, policy):
    runs = [run_summary(p) for p in sorted(glob.glob(os.path.join(OUT, f"{dt}-{tag}-{policy}-*.jsonl")))]
    if not runs:
        return None
    return tuple(mean([r[i] for r in runs]) for i in range(3))


def ceiling(dt):
    c = [x.get("ceiling") for p in glob.glob(os.path.join(OUT, f"{dt}-ceiling-*.jsonl")) for x in rows(p)
         if x.get("kind") == "aggregate" and x.get("ceiling")]
    return max(c) if c else None


def f(v, spec):
    return format(v, spec) if v is not None else "n/a"


LABELS = {"pipelined": "`-m pipelined` (defaults)", "pipe-8x12": "`-m pipelined --queues 8 --gen-threads 12`",
          "konly-8": "`-m kernel-only --queues 8`", "konly-1": "`-m kernel-only --queues 1`"}
print(open(os.path.join(OUT, "env.txt")).read().strip())
print()
print("| dtype | arrangement | Mbit/s | of_ceiling | device_busy | observer_share reported | "
      "`--profile off` Mbit/s | share lost | `--profile full` Mbit/s, device_busy |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|")
for dt in ("f64", "f32"):
    ceil = ceiling(dt)
    if ceil is None:
        continue
    print(f"| {dt} | ceiling (`--calibrate`, the higher of two) | {ceil:.1f} | 1.000 | | | | | |")
    ref = os.path.join(OUT, f"ref-{dt}.txt")
    for line in open(ref) if os.path.exists(ref) else []:
        m = re.search(r"ref_loop (\w+) queues=(\d+) .* mbit_s=([\d.]+)", line)
        if m:
            what = "plain pipelined loop (no generation)" if m.group(1) == "pipe" else "plain reference loop"
            print(f"| {dt} | {what}, {m.group(2)} queue(s) | {m.group(3)} | "
                  f"{float(m.group(3)) / ceil:.3f} | | | | | |")
    tags = list(LABELS) + sorted({re.sub(r"-(off|sampled|full)-\d+$", "", os.path.basename(p)[len(dt) + 1:-6])
                                  for p in glob.glob(os.path.join(OUT, f"{dt}-seed-*.jsonl"))},
                                 key=lambda t: int(t.split("-")[1]))
    for tag in tags:
        s, off, full = (arrangement(dt, tag, p) for p in ("sampled", "off", "full"))
        if not s:
            continue
        label = LABELS.get(tag) or "`-m seed -n %s`" % tag.split("-")[1]
        oc = s[0] / ceil if s[0] is not None else None
        mark = " (rate above the ceiling: stale)" if oc is not None and oc > 1 else ""
        if oc is not None and s[1] is not None and s[1] < oc - 0.02:
            mark += " (device_busy below it)"
        lost = 1 - s[0] / off[0] if off and off[0] and s[0] is not None else None
        fulls = f"{f(full[0], '.1f')}, {f(full[1], '.3f')}" if full else ""
        print(f"| {dt} | {label} | {f(s[0], '.1f')} | {f(oc, '.3f')}{mark} | {f(s[1], '.3f')} | "
              f"{f(s[2], '.3f')} | {f(off[0] if off else None, '.1f')} | {f(lost, '.3f')} | {fulls} |")
# The seed mode against the independent replicas of the original loop, process for process.
def replicas(name):
    got = {}
    path = os.path.join(OUT, name)
    for line in open(path) if os.path.exists(path) else []:
        m = re.search(r"copies=(\d+) .* mbit_s=([\d.]+) gen_ms_per_batch=([\d.]+)", line)
        if m:
            got.setdefault(int(m.group(1)), []).append((float(m.group(2)), float(m.group(3))))
    return got


c_rep, np_rep = replicas("replica-f64.txt"), replicas("replica-numpy-f64.txt")
if c_rep or np_rep:
    print()
    print("| f64, processes | `-m seed` Mbit/s | `--profile off` | replica in C | seed / C | "
          "C's generation, ms a batch | replica with numpy | seed / numpy | numpy's generation, ms a batch |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sorted(set(c_rep) | set(np_rep)):
        s, off = arrangement("f64", f"seed-{n}", "sampled"), arrangement("f64", f"seed-{n}", "off")
        cells = []
        for rep in (c_rep, np_rep):
            r = mean([x[0] for x in rep[n]]) if n in rep else None
            g = mean([x[1] for x in rep[n]]) if n in rep else None
            ratio = s[0] / r if s and s[0] is not None and r else None
            cells.append(f"{f(r, '.1f')} | {f(ratio, '.3f')} | {f(g, '.2f')}")
        print(f"| {n} | {f(s[0] if s else None, '.1f')} | {f(off[0] if off else None, '.1f')} | "
              f"{cells[0]} | {cells[1]} |")
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
