#!/usr/bin/env python3
"""check_trace.py: checks a Chrome/Perfetto trace-event JSON file (gputop-decode --trace, or
any trace in the array or {"traceEvents": [...]} form) for what a viewer needs to draw it
truthfully. Prints one line per problem and a summary line per file; exits 1 when any file has
a problem (or cannot be read), 0 otherwise.

    tools/check_trace.py trace.json [more.json ...]

Slices are complete events (ph "X", ts and dur) and B/E pairs (an E ends the latest open B of
its track); a track is a (pid, tid). Times are compared in whole nanoseconds (ts and dur are
microseconds with three decimals), so rounding never counts as an overlap.

Problems:
  overlap     two slices on one track overlap without one holding the other (nesting is
              fine; touching, one ending where the next starts, is fine)
  negative    a slice with a negative duration (dur < 0, or an E before its B)
  unmatched   an E without an open B, or a B never ended
  estimated   a device slice of an estimated record without "estimated": true in its args,
              or an "estimated" arg that is not a JSON boolean
  unmarked    an estimate drawn like a measurement: a device slice with "estimated": true on
              a track that holds measured device slices too, or named like a measured one
              without a "cname" of its own (Perfetto colours a slice by its name, Chrome's
              viewer by its cname); or a device slice on a track, or with a name, that says
              "estimated" while its args do not
  no-batch    a device slice without args.batch (its record cannot be told)
  counter     a counter event (ph "C") whose args are not an object of numbers
  instant     an instant event (ph "i" or "I") whose scope "s" is not g, p or t

Device slices are those whose category ("cat", a comma-separated list) names a device
command: h2d (write), kernel or d2h (read); everything else (host, generate) is a host slice.
A record is the set of device slices of one process with the same args.batch. gputop-decode
marks every device slice of a record whose device times are an estimate (GD_REC_ESTIMATED:
batches not profiled under --profile sampled) with "estimated": true and leaves it out on
measured ones; so a record is estimated when any of its device slices says so, and then every
one of them must. (Which records were estimated is the writer's knowledge: a trace in which
no slice of an estimated record says so cannot be told from a measured one. The integration
test checks that --profile full marks none and --profile sampled marks some.) gputop-decode
draws estimates apart: on tracks named "..., estimated", as "kernel (estimated)" slices, grey.
"""
import json
import sys

DEVICE_CATS = {"h2d", "kernel", "d2h"}
MAX_LINES = 200  # problem lines printed per file; the summary counts them all


def ns(v):
    return int(round(float(v) * 1000))


def is_device(e):
    return bool(DEVICE_CATS & {c.strip() for c in str(e.get("cat", "")).split(",")})


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if isinstance(data, dict):
        data = data.get("traceEvents")
    if not isinstance(data, list):
        raise ValueError("not a list of events, nor {\"traceEvents\": [...]}")
    return [e for e in data if isinstance(e, dict)]


def check_other(e, problems):
    """Counters and instant events: what a viewer needs to draw them."""
    ph = e.get("ph")
    if ph == "C":
        args = e.get("args")
        if not isinstance(args, dict) or not args or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in args.values()):
            problems.append(("counter", "pid %s: counter %r at ts %s has args %r, not numbers" %
                             (e.get("pid"), e.get("name"), e.get("ts"), args)))
    elif ph in ("i", "I") and e.get("s", "t") not in ("g", "p", "t"):
        problems.append(("instant", "instant %r at ts %s has scope %r, not g, p or t" %
                         (e.get("name"), e.get("ts"), e.get("s"))))


def check_marked(slices, names, where, label, problems):
    """Estimated device slices drawn apart from measured ones: a track and a colour of their own."""
    measured_names = set()
    measured_tracks = set()
    for key, lst in slices.items():
        for _, _, e in lst:
            if is_device(e) and (e.get("args") or {}).get("estimated") is not True:
                measured_names.add(e.get("name"))
                measured_tracks.add(key)
    for key, lst in slices.items():
        for _, _, e in lst:
            if not is_device(e):
                continue
            est = (e.get("args") or {}).get("estimated") is True
            if est and key in measured_tracks:
                problems.append(("unmarked", "%s: estimated %s shares its track with measured slices" %
                                 (where(key), label(e))))
            elif est and e.get("name") in measured_names and "cname" not in e:
                problems.append(("unmarked", "%s: estimated %s is named like a measured slice, without a "
                                 "cname: drawn in the same colour" % (where(key), label(e))))
            says = "estimated" in str(names.get(key, "")) or "estimated" in str(e.get("name", ""))
            if says and not est:
                problems.append(("unmarked", "%s: %s is on an estimated track or named so, without "
                                 "\"estimated\": true" % (where(key), label(e))))


def check(events):
    """(problems, stats): problems a list of (kind, text)."""
    problems = []
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e.get("pid"), e.get("tid"))] = (e.get("args") or {}).get("name", "")

    def where(key):
        name = names.get(key)
        return "pid %s tid %s%s" % (key[0], key[1], " (%s)" % name if name else "")

    def label(e):
        args = e.get("args") or {}
        return "%r%s at ts %s" % (e.get("name"), " batch %s" % args["batch"] if "batch" in args else "",
                                    e.get("ts"))

    slices = {}  # track -> [(start, end, event)]
    open_b = {}  # track -> [B events]
    for e in events:
        ph = e.get("ph")
        check_other(e, problems)
        if ph not in ("X", "B", "E"):
            continue
        key = (e.get("pid"), e.get("tid"))
        try:
            ts = ns(e["ts"])
            dur = ns(e["dur"]) if ph == "X" else 0
        except (KeyError, TypeError, ValueError):
            problems.append(("malformed", "%s: %s without a numeric ts%s" %
                             (where(key), label(e), " or dur" if ph == "X" else "")))
            continue
        if ph == "B":
            open_b.setdefault(key, []).append((ts, e))
            continue
        if ph == "E":
            if not open_b.get(key):
                problems.append(("unmatched", "%s: an E at ts %s ends no B" % (where(key), e.get("ts"))))
                continue
            ts0, b = open_b[key].pop()
            merged = dict(b)
            merged["args"] = dict(b.get("args") or {}, **(e.get("args") or {}))
            e, dur, ts = merged, ts - ts0, ts0
        if dur < 0:
            problems.append(("negative", "%s: %s lasts %.3f us" % (where(key), label(e), dur / 1000)))
            continue
        slices.setdefault(key, []).append((ts, ts + dur, e))
    for key, stack in open_b.items():
        for _, b in stack:
            problems.append(("unmatched", "%s: %s is never ended" % (where(key), label(b))))

    for key, lst in slices.items():
        lst.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for s, end, e in lst:
            while stack and stack[-1][1] <= s:
                stack.pop()
            if stack and end > stack[-1][1]:
                top = stack[-1]
                problems.append(("overlap", "%s: %s [%.3f, %.3f) overlaps %s [%.3f, %.3f) without nesting" %
                                 (where(key), label(e), s / 1000, end / 1000, label(top[2]),
                                  top[0] / 1000, top[1] / 1000)))
                continue
            stack.append((s, end, e))

    check_marked(slices, names, where, label, problems)

    records = {}  # (pid, batch) -> [(track, event)]
    ndev = nest = 0
    for key, lst in slices.items():
        for _, _, e in lst:
            if not is_device(e):
                continue
            ndev += 1
            args = e.get("args") or {}
            est = args.get("estimated", False)
            if not isinstance(est, bool):
                problems.append(("estimated", "%s: %s has \"estimated\": %r, not a boolean" %
                                 (where(key), label(e), est)))
            nest += est is True
            if "batch" not in args:
                problems.append(("no-batch", "%s: device slice %s has no args.batch" % (where(key), label(e))))
                continue
            records.setdefault((key[0], args["batch"]), []).append((key, e))
    for (pid, batch), lst in sorted(records.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]))):
        if not any((e.get("args") or {}).get("estimated") is True for _, e in lst):
            continue
        for key, e in lst:
            if (e.get("args") or {}).get("estimated") is not True:
                problems.append(("estimated", "%s: %s lacks \"estimated\": true; batch %s of pid %s is "
                                 "estimated" % (where(key), label(e), batch, pid)))
    stats = {"slices": sum(len(v) for v in slices.values()), "tracks": len(slices), "device": ndev,
             "estimated": nest, "records": len(records)}
    return problems, stats


def main(argv):
    paths = argv[1:]
    if not paths or paths[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if paths else 2
    bad = 0
    for path in paths:
        try:
            events = load(path)
        except (OSError, ValueError) as err:
            print("%s: cannot read: %s" % (path, err))
            print("check_trace.py: %s: unreadable" % path)
            bad += 1
            continue
        problems, st = check(events)
        for _, text in problems[:MAX_LINES]:
            print("%s: %s" % (path, text))
        kinds = {}
        for kind, _ in problems:
            kinds[kind] = kinds.get(kind, 0) + 1
        more = " (%d not shown)" % (len(problems) - MAX_LINES) if len(problems) > MAX_LINES else ""
        print("check_trace.py: %s: %d slices on %d tracks, %d device slices (%d estimated) of %d records: "
              "%s%s" % (path, st["slices"], st["tracks"], st["device"], st["estimated"], st["records"],
                        ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items())) or "no problems",
                        more))
        bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
