#!/usr/bin/env python3
"""check_figures.py: the physics checks every logged figure must pass, over JSONL logs (files,
or .tgz archives of them): device_busy >= of_ceiling (a device does no more work per busy
second than its ceiling; 0.002 allowed for rounding) and no negative duration. Prints one line
per file with violations, by field and kind; exits 1 when any were found.

    tools/check_figures.py doc/measurements            # every .jsonl and .tgz below it
"""
import json
import os
import sys
import tarfile

DURATIONS = ("gen_us", "h2d_us", "kernel_us", "d2h_us", "other_us", "gap_kernel_us",
             "gap_batch_us", "queue_wait_us")
SLACK = 0.002


def violations(lines):
    found = {}
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if not isinstance(row, dict):
            continue
        kind = row.get("kind", "?")
        busy, share = row.get("device_busy"), row.get("of_ceiling")
        if isinstance(busy, (int, float)) and isinstance(share, (int, float)) and busy < share - SLACK:
            found[("device_busy<of_ceiling", kind)] = found.get(("device_busy<of_ceiling", kind), 0) + 1
        for field in DURATIONS:
            v = row.get(field)
            if isinstance(v, (int, float)) and v < 0:
                found[(field + "<0", kind)] = found.get((field + "<0", kind), 0) + 1
    return found


def logs(path):
    """(name, lines) of every JSONL log at or below path."""
    if os.path.isdir(path):
        for root, _, files in sorted(os.walk(path)):
            for f in sorted(files):
                yield from logs(os.path.join(root, f))
    elif path.endswith(".jsonl"):
        with open(path, encoding="utf-8", errors="replace") as f:
            yield path, f.read().splitlines()
    elif path.endswith(".tgz") or path.endswith(".tar.gz"):
        with tarfile.open(path) as t:
            for m in t.getmembers():
                if m.isfile() and m.name.endswith(".jsonl"):
                    text = t.extractfile(m).read().decode("utf-8", "replace")
                    yield path + ":" + m.name, text.splitlines()


def main(argv):
    bad = 0
    for path in argv[1:] or ["doc/measurements"]:
        for name, lines in logs(path):
            found = violations(lines)
            if found:
                bad += 1
                print(name + ": " + ", ".join("%s %s x%d" % (k[0], k[1], n) for k, n in sorted(found.items())))
    print("%d file(s) with violations" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
