#!/usr/bin/env python3
"""check_log.py: parses a headless log or a sweep log (CSV or JSONL), checks invariants and
exits non-zero with a reason. Used by the integration tests.

  check_log.py LOG FMT PROCS [--breakdown] [--percentiles] [--overlaps] [--option NAME=JSON ...]
  check_log.py LOG FMT --sweep STEPS RUNS [--option NAME=JSON ...]

Every log starts with a run header (kind run) whose run object names the version, host,
device and every option; --option checks one option's value in it (JSON: 2, "seed", null).
ceiling_4x, where a row has it, comes with a ceiling and is above 0.
No number of a frame row is negative (the breakdown's parts, gaps and percentiles included);
a window in which no batch completed has no rate, never 0. The idle causes of an aggregate or
device row add up to 1 - device_busy, a worker's to 1 - kernel_busy, and hidden is a share.
--overlaps: some worker row
carries overlap_us and batch_overlap_us (they are measured, whatever their values)."""
import csv
import json
import math
import sys

FIELDS = ("t_s,kind,id,pid,state,procs,mbit_s,batches,symbols,kernel_busy,gap_kernel_us,gap_batch_us,"
          "gen_us,h2d_us,kernel_us,d2h_us,other_us,device_busy,headroom,lost,queue_wait_us,profile,"
          "ceiling,of_ceiling,sample_every,observer_share,gen_busy,observed,unix_s,gap_kernel_p50_us,"
          "gap_kernel_p99_us,gap_batch_p50_us,gap_batch_p99_us,run,kernel,rate_unit,device,overlap_us,"
          "batch_overlap_us,idle_host,idle_transfer,idle_launch,idle_wait,idle_other,hidden,source,command,via,"
          "launches,waits,h2d_bytes,d2h_bytes,exit_status,ceiling_4x,rate,items,items_s,batches_s,"
          "commands,commands_s,copy_bytes,transfer_busy,copy_busy,copy_us,idle_copy,kernel_s,transfer_s,copy_s").split(",")
IDLE = ("idle_host", "idle_transfer", "idle_launch", "idle_wait", "idle_copy", "idle_other")
# The fields that are not numbers (JSONL's error, timebase and device_busy_method too).
STRINGS = {"kind", "state", "profile", "error", "timebase", "device_busy_method", "run", "kernel", "rate_unit",
           "device", "source", "command", "via"}
PERCENTILES = (("gap_kernel_us", "gap_kernel_p50_us", "gap_kernel_p99_us"),
               ("gap_batch_us", "gap_batch_p50_us", "gap_batch_p99_us"))
SWEEP_FIELDS = ("procs,queues,mbit_s,speedup,device_busy,gap_batch_us,headroom,of_ceiling,runs,rep,"
                "mbit_s_min,mbit_s_max,mbit_s_sd,speedup_min,speedup_max,speedup_sd,within_spread,kind,"
                "run,kernel,rate_unit,queue_wait_us,device,predicted_mbit_s,rate,rate_min,rate_max,rate_sd,"
                "predicted_rate").split(",")
RUN_FACTS = ("version", "host", "device_name", "platform", "driver", "opencl")
WORKER_ONLY = {"id", "pid", "state", "kernel_busy", "gap_kernel_us", "gap_batch_us", "gen_us", "h2d_us",
               "kernel_us", "d2h_us", "other_us", "queue_wait_us", "sample_every",
               "observer_share", "gen_busy", "overlap_us", "batch_overlap_us", "hidden", "source", "command",
               "via", "launches", "waits", "h2d_bytes", "d2h_bytes", "exit_status", "commands", "commands_s",
               "copy_bytes", "transfer_busy", "copy_busy", "copy_us", "kernel_s", "transfer_s", "copy_s"}
# The breakdown of a batch: durations, each >= 0 (the overlaps count what would have made one
# negative).
BREAKDOWN = ("gen_us", "h2d_us", "queue_wait_us", "kernel_us", "d2h_us", "copy_us", "other_us", "overlap_us",
             "gap_kernel_us", "gap_batch_us", "batch_overlap_us", "gap_kernel_p50_us", "gap_kernel_p99_us",
             "gap_batch_p50_us", "gap_batch_p99_us")
AGG_ONLY = {"procs", "device_busy", "headroom", "profile", "ceiling", "of_ceiling", "ceiling_4x", "kernel",
            "rate_unit"}


def fail(msg):
    print("log check failed: " + msg)
    sys.exit(1)


def parse(path, fmt, fields, strings, nulls=False):
    """The rows of a log, CSV cells as numbers where they are numbers, empty cells left out."""
    rows = []
    with open(path) as f:
        text = f.read()
    if not text.endswith("\n"):
        fail("the log does not end with a whole line")
    if fmt == "csv":
        reader = csv.reader(text.splitlines())
        header = next(reader)
        if header != fields:
            fail("CSV header is %r" % header)
        for n, rec in enumerate(reader, 2):
            if len(rec) != len(fields):
                fail("line %d has %d fields" % (n, len(rec)))
            row = {}
            for k, v in zip(fields, rec):
                if v == "":
                    continue
                row[k] = v if k in strings else float(v)
            if "run" in row:
                row["run"] = json.loads(row["run"])
            rows.append(row)
    else:
        for n, line in enumerate(text.splitlines(), 1):
            obj = json.loads(line)
            for k, v in obj.items():
                if k not in strings and not isinstance(v, (int, float)) and not (nulls and v is None):
                    fail("line %d: %s is not a JSON number" % (n, k))
            rows.append(obj)
    return rows


def check_run(rows, options=()):
    """The first row is the run header, the only one: returns its run object."""
    if not rows or rows[0].get("kind") != "run":
        fail("the first row is not the run header: %r" % (rows[:1],))
    if any(r.get("kind") == "run" for r in rows[1:]):
        fail("a run header after the first row")
    head = rows[0]
    run = head.get("run")
    if not isinstance(run, dict):
        fail("the run header has no run object: %r" % head)
    for k in RUN_FACTS:
        if not isinstance(run.get(k), str):
            fail("the run object has no %s: %r" % (k, run))
    if not run["version"] or not run["device_name"]:
        fail("empty version or device name: %r" % run)
    opts = run.get("options")
    if not isinstance(opts, dict) or not opts:
        fail("the run object has no options: %r" % run)
    for spec in options:
        name, want = spec.split("=", 1)
        if name not in opts or opts[name] != json.loads(want):
            fail("option %s is %r, expected %s" % (name, opts.get(name, "(absent)"), want))
    if "t_s" in head and (head["t_s"] != 0 or not head.get("unix_s", 0) > 1.6e9):
        fail("the run header's t_s %r, unix_s %r" % (head["t_s"], head.get("unix_s")))
    return run


def check_idle(kind, n, row):
    """The diagnosis: every cause or none; they add up to the idle share they split."""
    have = [k in row for k in IDLE]
    if any(have) != all(have):
        fail("%s row %d: some idle causes without the others: %r" % (kind, n, row))
    if not all(have):
        return
    busy = row.get("kernel_busy" if kind == "worker" else "device_busy")
    if busy is None:
        fail("%s row %d: idle causes without the busy share they split: %r" % (kind, n, row))
    if abs(sum(row[k] for k in IDLE) - max(0.0, 1 - busy)) > 3e-4:
        fail("%s row %d: idle causes add up to %.4f, not 1 - busy %.4f" % (kind, n, sum(row[k] for k in IDLE), 1 - busy))
    if not 0 <= row.get("hidden", 0) <= 1:
        fail("%s row %d: hidden %r" % (kind, n, row["hidden"]))


def load(path, fmt, options=()):
    rows = parse(path, fmt, FIELDS, STRINGS)
    check_run(rows, options)
    rows = rows[1:]
    for n, row in enumerate(rows):
        kind = row.get("kind")
        if kind not in ("worker", "aggregate", "device"):
            fail("row %d has kind %r" % (n, kind))
        if not row.get("device") or (kind == "aggregate") != (row["device"] == "all"):
            fail("%s row %d has device %r" % (kind, n, row.get("device")))
        forbidden = AGG_ONLY if kind == "worker" else WORKER_ONLY
        present = forbidden & set(row)
        if present:
            fail("%s row %d carries %s" % (kind, n, sorted(present)))
        for k, v in row.items():
            if isinstance(v, float) and not math.isfinite(v):
                fail("row %d: %s is %r" % (n, k, v))
            # Every number of a frame row is a count, a time, a rate or a share: none is negative.
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
                fail("%s row %d: %s is negative: %r" % (kind, n, k, v))
        check_idle(kind, n, row)
        if "ceiling_4x" in row and not ("ceiling" in row and row["ceiling_4x"] > 0):
            fail("%s row %d: ceiling_4x without a ceiling, or not above 0: %r" % (kind, n, row))
        if ("gap_batch_us" in row) != ("batch_overlap_us" in row):
            fail("row %d: gap_batch_us and batch_overlap_us measured apart: %r" % (n, row))
        if kind == "worker" and ("other_us" in row) != ("overlap_us" in row):
            fail("row %d: other_us and overlap_us measured apart: %r" % (n, row))
        for mean, p50, p99 in PERCENTILES:
            if p50 in row and p99 in row and not row[p50] <= row[p99]:
                fail("row %d: %s %s > %s %s" % (n, p50, row[p50], p99, row[p99]))
            if (p50 in row) != (p99 in row) or (kind == "worker" and (mean in row) != (p50 in row)):
                fail("row %d: %s, %s and %s measured apart: %r" % (n, mean, p50, p99, row))
    return rows


def percentiles_seen(rows):
    """How many rows carry p50 <= p99 of the kernel and batch gaps (the log checked them)."""
    return sum(1 for r in rows if all(p in r for _, p50, p99 in PERCENTILES for p in (p50, p99)))


def check_sweep_devices(rows):
    """On two or more devices every step's row (device "all") is followed by one row per device
    of the same kind, whose rates and workers add up to the step's and which have no speedup
    of their own. Returns the step rows."""
    steps, ndev = [], None
    for i, r in enumerate(rows):
        if r.get("device") != "all":
            continue
        devs = []
        for d in rows[i + 1:]:
            if d.get("device") == "all":
                break
            devs.append(d)
        if ndev is None:
            ndev = len(devs)
        if len(devs) != ndev or ndev == 1:
            fail("step row %d is followed by %d device rows (the first by %d)" % (i, len(devs), ndev))
        for d in devs:
            if d.get("kind") != r.get("kind") or "speedup" in d or "within_spread" in d:
                fail("device row %r of step row %r: its kind, or a speedup of its own" % (d, r))
        if devs and abs(sum(d["mbit_s"] for d in devs) - r["mbit_s"]) > 1e-3 * (1 + len(devs)):
            fail("step row %d: mbit_s %s is not the sum of its devices'" % (i, r["mbit_s"]))
        if devs and sum(int(d["procs"]) for d in devs) != int(r["procs"]):
            fail("step row %d: the devices' workers do not add up to %s" % (i, r["procs"]))
        steps.append(r)
    if len(steps) * (1 + (ndev or 0)) != len(rows):
        fail("%d rows are neither a step's nor its devices'" % (len(rows) - len(steps) * (1 + (ndev or 0))))
    return steps


def check_sweep(path, fmt, steps, runs, options=()):
    """A sweep log: the run header; with runs > 1 a repeat row for every run of every step, in
    passes over the list; then one summary (kind sweep) per step, its figures the means of its
    runs, min <= mean <= max, and the noise note by its rule; each with its devices' rows on
    two or more devices (check_sweep_devices)."""
    rows = parse(path, fmt, SWEEP_FIELDS, {"kind", "run", "kernel", "rate_unit", "device"}, nulls=True)
    run = check_run(rows, options)
    rows = check_sweep_devices(rows[1:])
    reps = [r for r in rows if r.get("kind") == "repeat"]
    sums = [r for r in rows if r.get("kind") == "sweep"]
    if len(reps) + len(sums) != len(rows):
        fail("unknown kinds: %r" % sorted({r.get("kind") for r in rows}))
    if len(sums) != steps:
        fail("%d summaries for %d steps" % (len(sums), steps))
    want_reps = steps * runs if runs > 1 else 0
    if len(reps) != want_reps:
        fail("%d repeat rows, expected %d" % (len(reps), want_reps))
    for i, r in enumerate(reps):
        if int(r["rep"]) != i // steps + 1:
            fail("repeat row %d is run %s, expected %d" % (i, r["rep"], i // steps + 1))
    prev = None
    for i, s in enumerate(sums):
        own = reps[i::steps]
        if int(s["runs"]) != runs:
            fail("step %d: runs %s, expected %d" % (i, s["runs"], runs))
        if own and abs(sum(r["mbit_s"] for r in own) / len(own) - s["mbit_s"]) > 1e-3:
            fail("step %d: mbit_s %s is not the mean of its runs" % (i, s["mbit_s"]))
        if not s["mbit_s_min"] - 1e-4 <= s["mbit_s"] <= s["mbit_s_max"] + 1e-4:
            fail("step %d: mbit_s outside min..max: %r" % (i, s))
        if "speedup" in s and not s["speedup_min"] - 1e-4 <= s["speedup"] <= s["speedup_max"] + 1e-4:
            fail("step %d: speedup outside min..max: %r" % (i, s))
        if runs > 1 and not s.get("mbit_s_sd", -1) >= 0:
            fail("step %d: no standard deviation over %d runs" % (i, runs))
        within = s.get("within_spread")
        if prev is None or runs < 2:
            if within not in (None, ""):
                fail("step %d: a noise note without a step or a spread to compare: %r" % (i, within))
        else:
            wide = max(s["mbit_s_max"] - s["mbit_s_min"], prev["mbit_s_max"] - prev["mbit_s_min"])
            rule = abs(s["mbit_s"] - prev["mbit_s"]) < wide
            said = within in (True, 1.0)
            if said != rule and abs(abs(s["mbit_s"] - prev["mbit_s"]) - wide) > 2e-4:
                fail("step %d: within_spread %r, the rule says %r" % (i, within, rule))
        prev = s
    return run, reps, sums


def windows(rows):
    """Groups rows by t_s: [(t_s, [worker rows], aggregate row)]; the window's device rows
    (runs on two or more devices) in the aggregate row's "_devices"."""
    out, cur, devs = [], [], []
    for row in rows:
        if row["kind"] == "worker":
            cur.append(row)
        elif row["kind"] == "device":
            devs.append(row)
        else:
            row["_devices"] = devs
            out.append((row["t_s"], cur, row))
            cur, devs = [], []
    if cur:
        fail("worker rows after the last aggregate")
    return out


def check(rows, procs):
    wins = windows(rows)
    if len(wins) < 2:
        fail("only %d windows" % len(wins))
    for t, ws, agg in wins:
        if any(r.get("observed") not in (True, 1) for r in ws + [agg]):
            # Not observed (the supervisor was stopped or starved): no rate may be shown.
            if any(k in r for r in ws + [agg] for k in ("mbit_s", "kernel_busy", "device_busy")):
                fail("t=%s: an unobserved window carries rates" % t)
            continue
        for w in ws + [agg] + agg["_devices"]:
            # A window in which no batch completed while a worker was at work measured no rate:
            # absent, never 0; a worker without a rate completed no batch in it.
            if "mbit_s" not in w and w.get("window_batches", 0) != 0:
                fail("t=%s: %s row without a rate, with %s batches" % (t, w["kind"], w["window_batches"]))
            # Kernel time is counted as it runs (doc/observe.md), so a worker whose batch is under
            # way at a window's end carries kernel_busy without a rate; never a batch's breakdown.
            if w["kind"] == "worker" and "mbit_s" not in w and "gen_us" in w:
                fail("t=%s: worker %s measured no rate but carries a breakdown: %r" % (t, w["id"], w))
        for key in ("mbit_s", "batches", "symbols", "lost"):
            if key not in agg:
                if any(w.get(key, 0) for w in ws):
                    fail("t=%s: the aggregate has no %s, its workers do: %r" % (t, key, ws))
                continue
            total = sum(w.get(key, 0) for w in ws)
            if abs(total - agg[key]) > 1e-3 * max(1, abs(total)) + 2e-4 * len(ws):
                fail("t=%s: aggregate %s %s != sum of workers %s" % (t, key, agg[key], total))
        if int(agg["procs"]) != len([w for w in ws if w["state"] not in ("exited", "failed")]):
            fail("t=%s: procs %s does not match the live worker rows" % (t, agg["procs"]))
        for w in ws:
            if not 0 <= w.get("kernel_busy", 0) <= 1.0 + 1e-9:
                fail("t=%s worker %s kernel_busy %s" % (t, w["id"], w["kernel_busy"]))
        # Each device's busy is bounded by its own workers'; one device is the whole run.
        groups = [(d, [w for w in ws if w["device"] == d["device"]]) for d in agg["_devices"]] or [(agg, ws)]
        if agg["_devices"] and {w["device"] for w in ws} - {d["device"] for d in agg["_devices"]}:
            fail("t=%s: a worker on a device without a device row" % t)
        for d, dws in groups:
            if int(d["procs"]) != len([w for w in dws if w["state"] not in ("exited", "failed")]):
                fail("t=%s %s: procs %s does not match its live worker rows" % (t, d["device"], d["procs"]))
            for key in ("mbit_s", "batches", "symbols"):
                if key not in d:
                    continue
                total = sum(w.get(key, 0) for w in dws)
                if abs(total - d[key]) > 1e-3 * max(1, abs(total)) + 2e-4 * len(dws):
                    fail("t=%s %s: %s %s != sum of its workers %s" % (t, d["device"], key, d[key], total))
            busy = [w["kernel_busy"] for w in dws if "kernel_busy" in w]
            # A worker that completed no batch in the window has no kernel_busy, but the kernels
            # of its batch under way may count in the device's: then only the lower bound holds.
            top = min(1.0, sum(busy)) if len(busy) == len(dws) else 1.0
            if busy and "device_busy" in d:
                if d["device_busy"] < max(busy) - 1e-3 or d["device_busy"] > top + 1e-3:
                    fail("t=%s %s device_busy %s not within [max %s, %s]" %
                         (t, d["device"], d["device_busy"], max(busy), top))
    last = wins[-1]
    ids = {w["id"] for w in last[1]}
    if len(ids) != procs:
        fail("the last window has %d workers, expected %d" % (len(ids), procs))
    for w in last[1]:
        if w["symbols"] <= 0:
            fail("worker %s decoded nothing" % w["id"])
        # Alive to the end: running, or stalled (its heartbeat late on a starved host: a state
        # that depends on the machine's load, not on the tool).
        if w["state"] not in ("running", "stalled"):
            fail("worker %s is %s" % (w["id"], w["state"]))
    return wins


def check_breakdown(wins, tolerance=0.08):
    """In seed mode a worker runs batches back to back, so the breakdown parts times the
    batches completed in each window (JSONL's window_batches) add up to the time that passed.
    The first window a worker appears in is skipped: it holds its start-up. The batches
    counted still cross the edges of the span checked: the first may have begun before it,
    the last under way at its end is not counted. So each unbroken span may be off by one
    batch, besides the tolerance: 8%, for the moments a host loaded beyond its cores (the
    suite under ASan on two) leaves the worker off the CPU between two batches, in none."""
    covered, elapsed, seen, spans, longest = {}, {}, set(), {}, {}
    before = set()  # the workers counted in the window before
    for i, (t, ws, agg) in enumerate(wins):
        span = agg.get("window_s", t - wins[i - 1][0] if i else t)
        if agg.get("observed") not in (True, 1):
            seen.clear()  # its batches are not in any window: start again after it
            before.clear()
            continue
        now = set()
        for w in ws:
            wid = w["id"]
            if wid in seen and "gen_us" in w:
                # Where the parts overlap, other is 0 and overlap_us their excess: less it, they
                # add up to the batch.
                parts = sum(w[k] for k in ("gen_us", "h2d_us", "queue_wait_us", "kernel_us", "d2h_us", "other_us"))
                parts -= w.get("overlap_us", 0)
                if wid not in before:
                    spans[wid] = spans.get(wid, 0) + 1
                now.add(wid)
                covered[wid] = covered.get(wid, 0.0) + w["window_batches"] * parts / 1e6
                elapsed[wid] = elapsed.get(wid, 0.0) + span
                longest[wid] = max(longest.get(wid, 0.0), parts / 1e6)
            if w["batches"] > 0:
                seen.add(wid)
        before = now
    if not covered:
        fail("no window to check the breakdown on")
    for wid in covered:
        edges = spans[wid] * longest[wid]
        if abs(covered[wid] - elapsed[wid]) > tolerance * elapsed[wid] + edges:
            fail("worker %s: breakdown covers %.3f of the time (%.3f s of %.3f s, batches up to %.3f s)"
                 % (wid, covered[wid] / elapsed[wid], covered[wid], elapsed[wid], longest[wid]))
    return covered


if __name__ == "__main__":
    args = sys.argv[1:]
    options = [args[i + 1] for i, a in enumerate(args) if a == "--option"]
    path, fmt = args[0], args[1]
    if args[2] == "--sweep":
        run, reps, sums = check_sweep(path, fmt, int(args[3]), int(args[4]), options)
        print("sweep log ok: %d repeat rows, %d summaries" % (len(reps), len(sums)))
        sys.exit(0)
    rows = load(path, fmt, options)
    wins = check(rows, int(args[2]))
    if "--breakdown" in args:
        check_breakdown(wins)
    if "--percentiles" in args and not any(percentiles_seen(ws + [agg]) for _, ws, agg in wins):
        fail("no window has gap percentiles")
    if "--overlaps" in args and not any("overlap_us" in w and "batch_overlap_us" in w for _, ws, _ in wins
                                        for w in ws):
        fail("no worker row has overlap_us and batch_overlap_us")
    nonneg = sum(1 for r in rows for k in BREAKDOWN if k in r)
    print("log ok: %d rows with gap percentiles; %d breakdown values, none negative (largest overlap_us %s, "
          "batch_overlap_us %s)" % (percentiles_seen(rows), nonneg,
                                    max([r["overlap_us"] for r in rows if "overlap_us" in r], default="n/a"),
                                    max([r["batch_overlap_us"] for r in rows if "batch_overlap_us" in r],
                                        default="n/a")))
