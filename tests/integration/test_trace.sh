#!/usr/bin/env bash
# test_trace.sh: --trace writes Chrome trace-event JSON with one process per worker, from which
# the union of kernel intervals per window reproduces the logged device_busy, and one process
# per device whose busy slices and counter are that union; slices on one track never overlap
# without nesting and estimated device times say so on tracks and in a colour of their own,
# checked by tools/check_trace.py (itself tested on made-up traces) over runs with several
# lanes; a sweep's steps are global markers; the file stays valid when the run is stopped by a
# signal and when --trace-limit is reached.
# tier: fast, about 25 s
. "$(dirname "$0")/lib.sh"
CHECK_TRACE="$ROOT/tools/check_trace.py"

# The checker on made-up traces: one with every problem it knows fails, naming each (estimates
# drawn like measurements among them); a clean one (nested and touching slices, a B/E pair, an
# estimated batch marked throughout and drawn apart, a counter, a global marker) passes.
cat >"$TMP/bad.json" <<'JSON'
[
{"name":"thread_name","ph":"M","pid":1,"tid":110,"args":{"name":"lane 1 kernels"}},
{"name":"kernel","cat":"kernel","ph":"X","pid":1,"tid":110,"ts":10.0,"dur":5.0,"args":{"batch":0,"lane":1}},
{"name":"kernel","cat":"kernel","ph":"X","pid":1,"tid":110,"ts":12.0,"dur":5.0,"args":{"batch":1,"lane":1}},
{"name":"write","cat":"h2d","ph":"X","pid":1,"tid":100,"ts":1.0,"dur":2.0,"args":{"batch":2,"lane":1,"estimated":true}},
{"name":"kernel","cat":"kernel","ph":"X","pid":1,"tid":110,"ts":30.0,"dur":1.0,"args":{"batch":2,"lane":1}},
{"name":"read","cat":"d2h","ph":"X","pid":1,"tid":120,"ts":40.0,"dur":-1.0,"args":{"batch":3,"lane":1}},
{"name":"generate","cat":"host","ph":"B","pid":1,"tid":1,"ts":50.0},
{"name":"generate","cat":"host","ph":"E","pid":1,"tid":1,"ts":45.0},
{"name":"kernel","cat":"kernel","ph":"X","pid":1,"tid":110,"ts":60.0,"dur":1.0,"args":{"lane":1}},
{"name":"kernel","cat":"kernel","ph":"X","pid":1,"tid":110,"ts":70.0,"dur":1.0,"args":{"batch":4,"lane":1,"estimated":1}},
{"name":"generate","cat":"host","ph":"E","pid":1,"tid":1,"ts":80.0},
{"name":"kernel","cat":"kernel","ph":"X","pid":1,"tid":110,"ts":90.0,"dur":1.0,"args":{"batch":5,"lane":1,"estimated":true}},
{"name":"kernel","cat":"kernel","ph":"X","pid":1,"tid":115,"ts":100.0,"dur":1.0,"args":{"batch":6,"lane":1,"estimated":true}},
{"name":"kernel (estimated)","cat":"kernel","ph":"X","pid":1,"tid":116,"ts":110.0,"dur":1.0,"args":{"batch":7,"lane":1}},
{"name":"kernels","ph":"C","pid":9,"tid":9,"ts":1.0,"args":{"running":"two"}},
{"name":"step 1","ph":"i","s":"x","pid":0,"tid":0,"ts":1.0}
]
JSON
"$CHECK_TRACE" "$TMP/bad.json" >"$TMP/bad.out" 2>&1
rc=$?
diag "$TMP/bad.out"
check "check_trace.py fails on a bad trace" test $rc -eq 1
for what in "'kernel' batch 1 at ts 12.0 \[12.000, 17.000) overlaps 'kernel' batch 0" \
	"'kernel' batch 2 at ts 30.0 lacks \"estimated\": true" "'read' batch 3 at ts 40.0 lasts -1.000 us" \
	"'generate' at ts 50.0 lasts -5.000 us" "has no args.batch" "has \"estimated\": 1, not a boolean" \
	"an E at ts 80.0 ends no B" "'kernel' batch 5 at ts 90.0 shares its track with measured slices" \
	"'kernel' batch 6 at ts 100.0 is named like a measured slice" \
	"'kernel (estimated)' batch 7 at ts 110.0 is on an estimated track or named so" \
	"counter 'kernels' at ts 1.0 has args" "instant 'step 1' at ts 1.0 has scope 'x'" \
	"1 counter, 2 estimated, 1 instant, 2 negative, 1 no-batch, 1 overlap, 3 unmarked, 1 unmatched"; do
	grep -q -- "$what" "$TMP/bad.out"
	ok $? "check_trace.py says: $what"
done
cat >"$TMP/good.json" <<'JSON'
{"traceEvents":[
{"name":"kernel","cat":"kernel","ph":"X","pid":1,"tid":110,"ts":10.0,"dur":5.0,"args":{"batch":0,"lane":1}},
{"name":"kernel","cat":"kernel","ph":"X","pid":1,"tid":110,"ts":15.0,"dur":5.0,"args":{"batch":1,"lane":1}},
{"name":"inner","cat":"kernel","ph":"X","pid":1,"tid":110,"ts":16.0,"dur":4.0,"args":{"batch":1,"lane":1}},
{"name":"kernel (estimated)","cat":"kernel","ph":"X","pid":1,"tid":115,"ts":12.0,"dur":5.0,"args":{"batch":2,"lane":1,"estimated":true}},
{"name":"read","cat":"d2h","cname":"grey","ph":"X","pid":1,"tid":125,"ts":18.0,"dur":0.5,"args":{"batch":2,"lane":1,"estimated":true}},
{"name":"read","cat":"d2h","ph":"X","pid":1,"tid":120,"ts":20.0,"dur":0.5,"args":{"batch":3,"lane":1}},
{"name":"kernels","ph":"C","pid":1000000,"tid":1000000,"ts":10.0,"args":{"running":1}},
{"name":"step 1: 1 processes","cat":"sweep","ph":"i","s":"g","pid":0,"tid":0,"ts":0.5},
{"name":"generate","cat":"host","ph":"B","pid":1,"tid":1,"ts":1.0},
{"name":"generate","cat":"host","ph":"E","pid":1,"tid":1,"ts":9.0},
{"name":"kernel","cat":"kernel","ph":"X","pid":2,"tid":110,"ts":12.0,"dur":5.0,"args":{"batch":0,"lane":1}}
]}
JSON
"$CHECK_TRACE" "$TMP/good.json" >"$TMP/good.out" 2>&1
ok $? "check_trace.py passes a clean trace"
diag "$TMP/good.out"

device_from_here

# Until the workers completed batches in 10 windows (bounded), then SIGINT.
"$BIN" --headless -n 2 -s 20000 -l 4 -i 0.5 -f jsonl -o "$TMP/log.jsonl" --trace "$TMP/trace.json" &
stop_when 120 $! windows_with_batches 10 "$TMP/log.jsonl"
ok $RC "a traced 2-worker run exits 0"

python3 - "$TMP/trace.json" "$TMP/log.jsonl" >"$TMP/out" 2>&1 <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
log = [json.loads(l) for l in open(sys.argv[2])]
DEVICE_PID = 1000000
tracks = {e["pid"] for e in events if e.get("name") == "process_name" and 0 < e["pid"] < DEVICE_PID}
assert len(tracks) == 2, "tracks: %r" % tracks
kernels = [(e["ts"], e["ts"] + e["dur"]) for e in events if e.get("cat") == "kernel"]
assert kernels, "no kernel events"
per_track = {p: sum(1 for e in events if e.get("cat") == "kernel" and e["pid"] == p) for p in tracks}
assert all(per_track.values()), per_track
for cat in ("host", "h2d", "d2h"):
    assert any(e.get("cat") == cat for e in events), "no %s events" % cat

def union(ivs, a, b):
    total, cs, ce = 0.0, None, None
    for s, e in sorted(ivs):
        if cs is None or s > ce:
            if cs is not None:
                total += max(0.0, min(ce, b) - max(cs, a))
            cs, ce = s, e
        else:
            ce = max(ce, e)
    if cs is not None:
        total += max(0.0, min(ce, b) - max(cs, a))
    return total

# The log puts a batch's kernels in the window where the batch completed; the trace's union
# takes them where they ran. The two differ only by the kernel time of batches that cross a
# window's edge: that much is allowed on top of 0.02.
batches = {}
for e in events:
    if e.get("cat") == "kernel":
        batches.setdefault((e["pid"], e["args"]["batch"]), []).append((e["ts"], e["ts"] + e["dur"]))
worst, n = 0.0, 0
for row in log:
    if row["kind"] != "aggregate" or "device_busy" not in row:
        continue
    b = row["t_s"] * 1e6
    a = b - row["window_s"] * 1e6
    busy = union(kernels, a, b) / (b - a)
    crossing = [iv for ivs in batches.values() for edge in (a, b)
                if min(s for s, _ in ivs) < edge < max(e for _, e in ivs) for iv in ivs]
    slack = union(crossing, a, b) / (b - a)
    worst = max(worst, abs(busy - row["device_busy"]) - slack)
    n += 1
    print("# window ending %.1f s: trace %.4f, log %.4f, batches across its edges %.4f" %
          (row["t_s"], busy, row["device_busy"], slack))
assert n >= 4, "only %d windows" % n
assert worst <= 0.02, "device_busy differs by %.4f beyond the batches across the edges" % worst
PY
ok $? "one process per worker; the trace's kernel union reproduces device_busy within 0.02 in every window (beyond batches across its edges)"
diag "$TMP/out"

# The device's process: its busy slices are the union of both workers' kernel slices (to the ns,
# give or take what a clipped slice lost, clipped_us; a kernel that came late, after its part
# of the union was written, is there only in part: the last event counts them, and a loaded
# machine may make a few), and its counter is above 0 exactly there, never above the kernels of
# the trace then running.
python3 - "$TMP/trace.json" >"$TMP/dev.out" 2>&1 <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
ns = lambda v: int(round(v * 1000))
procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
devs = [p for p in procs if p >= 1000000]
assert devs == [1000000], "device processes: %r" % {p: procs[p] for p in devs}
assert procs[1000000].startswith("device 0:0"), procs[1000000]
late = [e for e in ev if e.get("name") == "end of trace"][0]["args"]["late"]

def union(ivs):
    out = []
    for s, e in sorted(ivs):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out

kern = [(ns(e["ts"]), ns(e["ts"] + e["dur"])) for e in ev if e.get("cat") == "kernel"]
dx = [e for e in ev if e.get("pid") == 1000000 and e.get("ph") == "X"]
assert dx and all(e["name"] == "busy" and e["cat"] == "device" for e in dx), dx[:3]
busy = [(ns(e["ts"]), ns(e["ts"] + e["dur"])) for e in dx]
clip = sum(ns(e["args"].get("clipped_us", 0)) for e in ev if e.get("cat") == "kernel")
want, got = union(kern), union(busy)
tw, tg = sum(e - s for s, e in want), sum(e - s for s, e in got)
print("# kernels' union %.3f ms in %d spans, the device track's %.3f ms in %d (%d busy slices), clipped %.3f ms, "
      "%d late of %d kernels" % (tw / 1e6, len(want), tg / 1e6, len(got), len(busy), clip / 1e6, late, len(kern)))
assert late <= len(kern) // 50, "%d late" % late
low = tw if not late else 0.95 * tw
assert low <= tg <= tw + clip + len(kern), "union %d ns, device track %d ns" % (tw, tg)
steps = sorted((ns(e["ts"]), e["args"]["running"]) for e in ev if e.get("pid") == 1000000 and e.get("ph") == "C")
assert steps and steps[-1][1] == 0, "the counter ends at %r" % (steps[-1:],)
on, start = [], None
for t, v in steps:
    if v > 0 and start is None:
        start = t
    elif v == 0 and start is not None:
        on.append([start, t])
        start = None
assert union(on) == got, "counter above 0 over %d spans, busy slices %d spans" % (len(union(on)), len(got))
worst = max(v - sum(1 for s, e in kern if s <= t < e) for t, v in steps)
print("# %d counter values, at most %d running; at most %d more than the trace's slices" %
      (len(steps), max(v for _, v in steps), worst))
assert worst <= 0 or clip > 0
PY
ok $? "one process for the device: busy slices that are the union of every worker's kernels, a counter above 0 exactly there"
diag "$TMP/dev.out"
"$CHECK_TRACE" "$TMP/trace.json" >"$TMP/check.out" 2>&1
ok $? "check_trace.py passes that trace"
diag "$TMP/check.out"

# Several lanes: a track per lane and kind of command, none overlapping; estimated device times
# marked as such under --profile sampled, none under --profile full. Each run goes on until both
# workers have a batch on lane 3 (and under sampled an estimated and a measured device slice are
# in the trace), then is stopped.
traced_enough() { # traced_enough FILE PROFILE
	grep -qsE '"pid":1,"tid":31[0-7],' "$1" && grep -qsE '"pid":2,"tid":31[0-7],' "$1" &&
		{ [ "$2" = full ] || { grep -q '"estimated":true' "$1" && grep -qE '"lane":[0-9]+}' "$1"; }; }
}
for mode in pipelined kernel-only; do
	for prof in sampled full; do
		t="$TMP/$mode-$prof.json"
		"$BIN" --headless -n 2 -m "$mode" --queues 3 --profile "$prof" -s 20000 -l 4 -i 0.2 \
			-o /dev/null --trace "$t" &
		pid=$!
		wait_for 60 traced_enough "$t" "$prof"
		kill -TERM $pid
		wait $pid
		ok $? "-m $mode --queues 3 --profile $prof: a traced run stopped by SIGTERM exits 0"
		"$CHECK_TRACE" "$t" >"$TMP/check.out" 2>&1
		ok $? "-m $mode --queues 3 --profile $prof: check_trace.py passes its trace"
		diag "$TMP/check.out"
		python3 - "$t" "$mode" "$prof" >"$TMP/lanes.out" 2>&1 <<'PY'
import json, sys
path, mode, prof = sys.argv[1:]
ev = json.load(open(path))
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
dev = [e for e in ev if e.get("ph") == "X" and e["cat"] in ("h2d", "kernel", "d2h")]
kinds = {"h2d": ("write", "write"), "kernel": ("kernels", "kernel"), "d2h": ("read", "read")}
for e in dev:
    track = names[(e["pid"], e["tid"])]
    est = e["args"].get("estimated") is True
    want = "lane %d %s%s" % (e["args"]["lane"], kinds[e["cat"]][0], ", estimated" if est else "")
    assert track == want or track.startswith(want + ", overlap "), (track, e)
    assert e["name"] == kinds[e["cat"]][1] + (" (estimated)" if est else ""), e
    assert ("cname" in e) == est, e
for pid in (1, 2):
    lanes = {e["args"]["lane"] for e in dev if e["pid"] == pid and e["cat"] == "kernel"}
    assert lanes == {1, 2, 3}, "worker %d: kernels on lanes %r" % (pid, lanes)
    if mode == "pipelined":
        assert {e["cat"] for e in dev if e["pid"] == pid} == {"h2d", "kernel", "d2h"}, pid
est = sum(1 for e in dev if e["args"].get("estimated") is True)
print("# %d device slices, %d estimated, on %d tracks" % (len(dev), est,
      len({(e["pid"], e["tid"]) for e in dev})))
if prof == "full":
    assert est == 0, "estimated slices under --profile full"
else:
    assert 0 < est < len(dev), "sampled: estimated and measured device slices expected"
PY
		ok $? "-m $mode --queues 3 --profile $prof: kernels of each worker on lanes 1-3, each on its lane's track (estimates on its estimated track, named and coloured apart); estimated $([ "$prof" = full ] && echo none || echo some)"
		diag "$TMP/lanes.out"
	done
done

# A sweep: each step (and run) a global marker as it starts, in order, before that step's batches.
"$BIN" --sweep 1,2 --repeat 2 -D 0.3 -i 0.1 -s 5000 -l 2 -o /dev/null --trace "$TMP/sweep.json" \
	>/dev/null 2>"$TMP/sweep.err"
ok $? "a traced sweep 1,2 --repeat 2 exits 0"
diag "$TMP/sweep.err"
python3 - "$TMP/sweep.json" >"$TMP/sweep.out" 2>&1 <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
marks = [e for e in ev if e.get("cat") == "sweep"]
want = ["step %d: %d processes x 1 queues, run %d" % (i, i, r) for r in (1, 2) for i in (1, 2)]
assert [m["name"] for m in marks] == want, [m["name"] for m in marks]
assert all(m["ph"] == "i" and m["s"] == "g" for m in marks), marks
ts = [m["ts"] for m in marks]
assert ts == sorted(ts), ts
# Step 2 of each run has two workers: kernels of two of them between its marker and the next.
for m in (marks[1], marks[3]):
    nxt = [n["ts"] for n in marks if n["ts"] > m["ts"]]
    upto = nxt[0] if nxt else float("inf")
    pids = {e["pid"] for e in ev if e.get("cat") == "kernel" and m["ts"] <= e["ts"] < upto}
    assert len(pids) >= 2, "%s: kernels of %r" % (m["name"], pids)
print("# markers at %s us" % ", ".join("%.0f" % t for t in ts))
PY
ok $? "the sweep's trace: a global marker per step and run, named for it, in order, two workers' kernels after each step 2's"
diag "$TMP/sweep.out"
"$CHECK_TRACE" "$TMP/sweep.json" >"$TMP/check.out" 2>&1
ok $? "check_trace.py passes the sweep's trace"
diag "$TMP/check.out"

# Stopped by SIGTERM: still valid JSON.
"$BIN" --headless -n 1 -s 20000 -l 2 -i 0.2 -o /dev/null --trace "$TMP/term.json" &
pid=$!
wait_for 60 grep -qs '"cat":"kernel"' "$TMP/term.json"
kill -TERM $pid
wait $pid
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/term.json"
ok $? "the trace is valid JSON after SIGTERM"

# The limit bounds the file and says so: the run goes on until the note is in the file (bounded:
# a loaded machine takes longer to reach 50 intervals), then is stopped by SIGTERM.
"$BIN" --headless -n 1 -s 20000 -l 2 -i 0.2 -o /dev/null --trace "$TMP/lim.json" --trace-limit 50 &
pid=$!
wait_for 120 grep -qs 'trace limit reached' "$TMP/lim.json"
kill -TERM $pid
wait $pid
python3 - "$TMP/lim.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
assert sum(1 for e in ev if e.get("ph") == "X") <= 50
assert any("trace limit reached" in e.get("name", "") for e in ev)
PY
ok $? "--trace-limit 50: at most 50 intervals and a note that the limit was reached"

# Killed by SIGKILL: the file holds whole lines (one event per line), and the one-liner of the
# man page and doc/fields.md turns it into valid JSON.
"$BIN" --headless -n 1 -s 20000 -l 2 -i 0.2 -o /dev/null --trace "$TMP/kill.json" &
pid=$!
wait_for 60 grep -qs '"cat":"kernel"' "$TMP/kill.json"
kill -KILL $pid
wait $pid 2>/dev/null
python3 - "$TMP/kill.json" >"$TMP/kill.out" 2>&1 <<'PY'
import json, sys
text = open(sys.argv[1]).read()
assert text.endswith("\n"), "the file ends mid-line: %r" % text[-80:]
lines = text.splitlines()
assert lines[0] == "[", "first line %r" % lines[0]
for n, line in enumerate(lines[1:], 2):
    assert line.endswith(","), "line %d is not one event and a comma: %r" % (n, line[-80:])
    json.loads(line[:-1])
print("# %d whole events" % (len(lines) - 1))
PY
ok $? "after SIGKILL the trace ends with a whole line, one event per line"
diag "$TMP/kill.out"
python3 -c 'import sys; t = open(sys.argv[1]).read(); print(t[:max(t.rfind("},\n") + 1, 1)] + "\n]")' \
	"$TMP/kill.json" >"$TMP/fixed.json"
python3 -c 'import json,sys; assert any(e.get("cat") == "kernel" for e in json.load(open(sys.argv[1])))' "$TMP/fixed.json"
ok $? "the documented one-liner makes it valid JSON with its kernel events"

# Standard output closed: the trace never takes descriptor 1, so the log cannot land in it.
"$BIN" --headless -n 1 -s 20000 -l 2 -i 0.2 -D 1 --trace "$TMP/closed.json" >&- 2>"$TMP/closed.err"
ok $? "a run with standard output closed exits 0"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/closed.json" 2>"$TMP/closed.out" &&
	! grep -q 't_s,kind' "$TMP/closed.json"
ok $? "its trace is valid JSON without the log inside"
diag "$TMP/closed.out" "$TMP/closed.err"

# Every output is created the same way: 0644 less the umask, also under umask 000.
(umask 000 && "$BIN" --headless -n 1 -s 20000 -l 2 -i 0.2 -D 0.5 -o "$TMP/u.csv" --trace "$TMP/u.json")
modes="$(stat -c %a "$TMP/u.csv") $(stat -c %a "$TMP/u.json")"
check "umask 000: the log and the trace are both created 644 ($modes)" test "$modes" = "644 644"
