#!/usr/bin/env python3
"""check_log.py: parses a headless log (CSV or JSONL) and prints TAP-free facts as JSON, or
checks invariants and exits non-zero with a reason. Used by the integration tests."""
import csv
import json
import math
import sys

FIELDS = ("t_s,kind,id,pid,state,procs,mbit_s,batches,symbols,kernel_busy,gap_kernel_us,gap_batch_us,"
          "gen_us,h2d_us,kernel_us,d2h_us,other_us,device_busy,headroom,lost,queue_wait_us,profile,"
          "ceiling,of_ceiling,sample_every,observer_share,gen_busy,observed,unix_s,device").split(",")
NUMERIC = set(FIELDS) - {"kind", "state", "profile", "device"}
WORKER_ONLY = {"id", "pid", "state", "kernel_busy", "gap_kernel_us", "gap_batch_us", "gen_us", "h2d_us",
               "kernel_us", "d2h_us", "other_us", "queue_wait_us", "sample_every",
               "observer_share", "gen_busy"}
AGG_ONLY = {"procs", "device_busy", "headroom", "profile", "ceiling", "of_ceiling"}


def fail(msg):
    print("log check failed: " + msg)
    sys.exit(1)


def load(path, fmt):
    rows = []
    with open(path) as f:
        text = f.read()
    if not text.endswith("\n"):
        fail("the log does not end with a whole line")
    if fmt == "csv":
        reader = csv.reader(text.splitlines())
        header = next(reader)
        if header != FIELDS:
            fail("CSV header is %r" % header)
        for n, rec in enumerate(reader, 2):
            if len(rec) != len(FIELDS):
                fail("line %d has %d fields" % (n, len(rec)))
            row = {}
            for k, v in zip(FIELDS, rec):
                if v == "":
                    continue
                row[k] = float(v) if k in NUMERIC else v
            rows.append(row)
    else:
        for n, line in enumerate(text.splitlines(), 1):
            obj = json.loads(line)
            for k, v in obj.items():
                if k in NUMERIC and not isinstance(v, (int, float)):
                    fail("line %d: %s is not a JSON number" % (n, k))
            rows.append(obj)
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
    return rows


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
        for key in ("mbit_s", "batches", "symbols", "lost"):
            total = sum(w[key] for w in ws)
            if abs(total - agg[key]) > 1e-3 * max(1, abs(total)) + 2e-4 * len(ws):
                fail("t=%s: aggregate %s %s != sum of workers %s" % (t, key, agg[key], total))
        if int(agg["procs"]) != len([w for w in ws if w["state"] not in ("exited", "failed")]):
            fail("t=%s: procs %s does not match the live worker rows" % (t, agg["procs"]))
        for w in ws:
            if not 0 <= w["kernel_busy"] <= 1.0 + 1e-9:
                fail("t=%s worker %s kernel_busy %s" % (t, w["id"], w["kernel_busy"]))
        # Each device's busy is bounded by its own workers'; one device is the whole run.
        groups = [(d, [w for w in ws if w["device"] == d["device"]]) for d in agg["_devices"]] or [(agg, ws)]
        if agg["_devices"] and {w["device"] for w in ws} - {d["device"] for d in agg["_devices"]}:
            fail("t=%s: a worker on a device without a device row" % t)
        for d, dws in groups:
            if int(d["procs"]) != len([w for w in dws if w["state"] not in ("exited", "failed")]):
                fail("t=%s %s: procs %s does not match its live worker rows" % (t, d["device"], d["procs"]))
            for key in ("mbit_s", "batches", "symbols"):
                total = sum(w[key] for w in dws)
                if abs(total - d[key]) > 1e-3 * max(1, abs(total)) + 2e-4 * len(dws):
                    fail("t=%s %s: %s %s != sum of its workers %s" % (t, d["device"], key, d[key], total))
            if dws and "device_busy" in d:
                busy = [w["kernel_busy"] for w in dws]
                if d["device_busy"] < max(busy) - 1e-3 or d["device_busy"] > min(1.0, sum(busy)) + 1e-3:
                    fail("t=%s %s device_busy %s not within [max %s, min(1, sum %s)]" %
                         (t, d["device"], d["device_busy"], max(busy), sum(busy)))
    last = wins[-1]
    ids = {w["id"] for w in last[1]}
    if len(ids) != procs:
        fail("the last window has %d workers, expected %d" % (len(ids), procs))
    for w in last[1]:
        if w["symbols"] <= 0:
            fail("worker %s decoded nothing" % w["id"])
        if w["state"] != "running":
            fail("worker %s is %s" % (w["id"], w["state"]))
    return wins


def check_breakdown(wins, tolerance=0.05):
    """In seed mode a worker runs batches back to back, so the breakdown parts times the
    batches completed in each window (JSONL's window_batches) add up to the time that passed.
    The first window a worker appears in is skipped: it holds its start-up."""
    covered, elapsed, seen = {}, {}, set()
    for i, (t, ws, agg) in enumerate(wins):
        span = agg.get("window_s", t - wins[i - 1][0] if i else t)
        if agg.get("observed") not in (True, 1):
            seen.clear()  # its batches are not in any window: start again after it
            continue
        for w in ws:
            wid = w["id"]
            if wid in seen and "gen_us" in w:
                parts = sum(w[k] for k in ("gen_us", "h2d_us", "queue_wait_us", "kernel_us", "d2h_us", "other_us"))
                covered[wid] = covered.get(wid, 0.0) + w["window_batches"] * parts / 1e6
                elapsed[wid] = elapsed.get(wid, 0.0) + span
            if w["batches"] > 0:
                seen.add(wid)
    if not covered:
        fail("no window to check the breakdown on")
    for wid in covered:
        ratio = covered[wid] / elapsed[wid]
        if abs(ratio - 1) > tolerance:
            fail("worker %s: breakdown covers %.3f of the time" % (wid, ratio))
    return covered


if __name__ == "__main__":
    path, fmt, procs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    wins = check(load(path, fmt), procs)
    if "--breakdown" in sys.argv:
        check_breakdown(wins)
    print("log ok")
