#!/usr/bin/env python3
"""check_patterns.py: one observed run of cl_patterns against the program's own ground truth.

Usage: check_patterns.py NAME ALONE OBSERVED_ERR LOG [--times [--every N]]
  ALONE         the program's standard output, run alone (its one JSON line)
  OBSERVED_ERR  the supervisor's standard error of the observed run: the program's output
                relayed as "[1] " lines (a long line arrives cut into several)
  LOG           the observed run's JSONL log
  --times       the program profiled itself: its kernel_s, transfer_s and copy_s are truth
  --every N     observed with --sample-every N: one batch in N read, the rest estimated; the
                log says so (sample_every N) and the times need only be within 15%

It prints one line per check, for test_observe_patterns.sh to number as TAP:
"PASS desc", "FAIL desc", "SKIP desc" (a field the log does not have yet) or "DIAG text".
Counts must be exact; the times within 5% of the program's own (15% where estimated) (plus 5 ms: SLACK_S; the resolution
below which a sum of microsecond commands says nothing): the windows' kernel time (kernel_busy x
window_s, summed; less up to a tick of each kernel long enough to be seen under way), and kernel_s, transfer_s and copy_s where the log has them, read like the
counts as the run's totals in the process's last row; the device's busy time (device_busy x
window_s) never more than the program's kernel time.
"""
import json
import math
import sys

EXACT = ("launches", "h2d_bytes", "d2h_bytes", "waits")
EXACT_WHEN_THERE = ("commands", "copy_bytes")
TIMES = ("kernel_s", "transfer_s", "copy_s")


def program_json(text):
    """The program's JSON object in text (None if there is none)."""
    at = text.find('{"mode"')
    if at < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text[at:])[0]
    except ValueError:
        return None


def relayed(path):
    """The observed program's output: the "[1] " lines joined as they were cut."""
    parts = [l[4:].rstrip("\n") for l in open(path, errors="replace") if l.startswith("[1] ")]
    return "".join(parts)


def last_worker_row(path):
    """The last row of the one observed process, and how many processes the log has."""
    rows = []
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("kind") == "worker" and r.get("pid"):
            rows.append(r)
    pids = {r["pid"] for r in rows}
    return (rows[-1] if rows else None), len(pids)


def busy_seconds(path, kind, field):
    """The seconds a busy share of the log's rows of kind shows: each window's field x its length."""
    rows = [json.loads(l) for l in open(path) if l.startswith("{")]
    window = {r["t_s"]: r.get("window_s") for r in rows if r.get("kind") == "aggregate"}
    total = 0.0
    for r in rows:
        b, w = r.get(field), window.get(r.get("t_s"))
        if r.get("kind") == kind and isinstance(b, (int, float)) and isinstance(w, (int, float)):
            if not math.isnan(b):
                total += b * w
    return total


class Report:
    def __init__(self, name):
        self.name = name

    def check(self, cond, desc):
        print("%s %s: %s" % ("PASS" if cond else "FAIL", self.name, desc))

    def skip(self, desc):
        print("SKIP %s: %s" % (self.name, desc))

    def diag(self, text):
        print("DIAG %s: %s" % (self.name, text))


def counts(rep, truth, row):
    for f in EXACT:
        rep.check(row.get(f) == truth[f], "%s %s, the program's %s" % (f, row.get(f), truth[f]))
    items = "items" if "items" in row else "symbols"
    rep.check(row.get(items) == truth["items"],
              "items (as %s) %s, the program's %s" % (items, row.get(items), truth["items"]))
    for f in EXACT_WHEN_THERE:
        if f in row:
            rep.check(row[f] == truth[f], "%s %s, the program's %s" % (f, row[f], truth[f]))
        else:
            rep.skip("field %s not in the log yet" % f)


# What a time may differ by beyond 5%: the library's thread says a kernel is under way every
# 25 ms, and on a loaded host a word can come one tick late or early at a window's end.
SLACK_S = 0.005
TICK_S = 0.03  # the library's thread looks at the kept events every 25 ms, and a loaded host delays it


def near(got, want, within):
    return isinstance(got, (int, float)) and abs(got - want) <= within * want + SLACK_S


def times(rep, truth, row, log, within):
    rep.diag("the program's own kernel_s %.6f transfer_s %.6f copy_s %.6f"
             % (truth["kernel_s"], truth["transfer_s"], truth["copy_s"]))
    # A kernel under way counts in the windows from the first tick of the library's thread that
    # sees it running, never before it began: the windows may miss up to a tick of each kernel
    # long enough to be seen so (the record brings the rest to the totals, checked below).
    busy = busy_seconds(log, "worker", "kernel_busy")
    want = truth["kernel_s"]
    long_kernels = truth["launches"] if truth["launches"] and want / truth["launches"] >= TICK_S else 0
    low = (1 - within) * want - SLACK_S - TICK_S * long_kernels
    rep.check(low <= busy <= (1 + within) * want + SLACK_S, "the kernel time of the windows (kernel_busy x"
              " window_s) %.6f within %d%% of the program's own %.6f (less a tick for each of %d long"
              " kernels)" % (busy, round(100 * within), want, long_kernels))
    # One process: the device was busy only while its kernels ran.
    dev = busy_seconds(log, "aggregate", "device_busy")
    rep.check(dev <= (1 + within) * truth["kernel_s"] + SLACK_S, "the device's busy time (device_busy x window_s)"
              " %.6f no more than the program's kernels could fill (%.6f)" % (dev, truth["kernel_s"]))
    for f in TIMES:
        if f not in row:
            rep.skip("field %s not in the log yet" % f)
            continue
        rep.check(near(row[f], truth[f], within), "%s %s (the last row's, the run's total) within %d%% of"
                  " the program's own %.6f" % (f, row[f], round(100 * within), truth[f]))


def main():
    name, alone_path, err_path, log_path = sys.argv[1:5]
    rep = Report(name)
    alone = program_json(open(alone_path, errors="replace").read())
    seen = program_json(relayed(err_path))
    rep.check(alone is not None and seen is not None, "the program printed its truth alone and observed")
    if alone is None or seen is None:
        return
    rep.check(seen["checksum"] == alone["checksum"],
              "the results' checksum %s, alone %s" % (seen["checksum"], alone["checksum"]))
    rep.check(seen["api"] == alone["api"], "the API's answers %s, alone %s"
              % (json.dumps(seen["api"], sort_keys=True), json.dumps(alone["api"], sort_keys=True)))
    row, npids = last_worker_row(log_path)
    rep.check(row is not None and npids == 1, "the log has one observed process (%d)" % npids)
    if row is None:
        return
    counts(rep, seen, row)
    opts = sys.argv[5:]
    every = int(opts[opts.index("--every") + 1]) if "--every" in opts else 0
    if every:
        # batches per profiled one so far: the first two, then one in every
        got = row.get("sample_every")
        rep.check(isinstance(got, int) and every - 1 <= got <= every,
                  "sample_every %s: one batch in %d read, and the first two" % (got, every))
    if "--times" in opts:
        times(rep, seen, row, log_path, 0.15 if every else 0.05)


if __name__ == "__main__":
    main()
