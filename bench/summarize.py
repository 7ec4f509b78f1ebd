#!/usr/bin/env python3
"""summarize.py: one line per headless JSONL log: steady windows' (from --from S seconds on,
1.5 by default) mean Mbit/s, of_ceiling, device_busy and the workers' last observer_share.

    bench/summarize.py [--from S] DIR_OR_FILES...
"""
import glob
import json
import os
import statistics
import sys


def rows(path):
    """The JSON objects of a log, a line each; lines that are not JSON are skipped."""
    out = []
    for line in open(path):
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def mean(xs):
    """The mean of the numbers among xs, or None."""
    xs = [x for x in xs if isinstance(x, (int, float))]
    return statistics.mean(xs) if xs else None


def summary(path, since):
    r = rows(path)
    agg = [x for x in r if x.get("kind") == "aggregate" and x.get("t_s", 0) >= since]
    wk = [x for x in r if x.get("kind") == "worker" and x.get("observer_share") is not None]
    share = wk[-1]["observer_share"] if wk else None
    return tuple(mean([x.get(k) for x in agg]) for k in ("mbit_s", "of_ceiling", "device_busy")) + (share,)


def fmt(v, spec):
    return format(v, spec) if v is not None else "n/a"


def main():
    args, since = sys.argv[1:], 1.5
    if args[:1] == ["--from"]:
        since, args = float(args[1]), args[2:]
    files = []
    for a in args:
        files += sorted(glob.glob(os.path.join(a, "*.jsonl"))) if os.path.isdir(a) else [a]
    for f in files:
        m, c, b, s = summary(f, since)
        print(f"{os.path.basename(f)[:-6]:<24} mbit_s {fmt(m, '8.1f')}  of_ceiling {fmt(c, '.3f')}  "
              f"device_busy {fmt(b, '.3f')}  observer_share {fmt(s, '.3f')}")


if __name__ == "__main__":
    main()
