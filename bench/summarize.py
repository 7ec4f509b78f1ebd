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


def summary(path, since):
    rows = []
    for line in open(path):
        try:
            rows.append(json.loads(line))
        except ValueError:
            pass
    agg = [r for r in rows if r.get("kind") == "aggregate" and r.get("t_s", 0) >= since]
    wk = [r for r in rows if r.get("kind") == "worker" and r.get("observer_share") is not None]

    def mean(key):
        v = [r[key] for r in agg if isinstance(r.get(key), (int, float))]
        return statistics.mean(v) if v else None

    share = wk[-1]["observer_share"] if wk else None
    return mean("mbit_s"), mean("of_ceiling"), mean("device_busy"), share


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
