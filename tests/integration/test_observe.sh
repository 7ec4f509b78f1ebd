#!/usr/bin/env bash
# test_observe.sh: gputop-decode -- COMMAND observes an unmodified OpenCL program through
# libgputop-observe.so, as a loader layer and by LD_PRELOAD: a C program with known launches,
# transfers and waits gives exactly those counts on either path; a program that forks children
# that use OpenCL is observed in every child; one without OpenCL says so; the program's output is
# the same observed or not; a PyOpenCL program of the question's structure, 1 and 2 copies, gives
# 10 launches a batch and a rate within 10% of the one it prints; --sweep steps over copies.
# Nothing is left behind.
# tier: fast, about 40 s
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
APP="$ROOT/tests/fixtures/seed_app.py"
CNT="$FIXTURES/cl_counts" # make fixtures
check "the C test program is built" test -x "$CNT"
"$BIN" --headless --sweep 1x2 -D 1 -- "$CNT" 1 1 2>"$TMP/sweepq.err"
check "--sweep 1x2 -- COMMAND: refused (status 2, one line naming the step)" \
	test $? -eq 2 -a "$(wc -l <"$TMP/sweepq.err")" -eq 1 -a -n "$(grep "step 1x2: an observed program's queues are its own" "$TMP/sweepq.err")"

device_from_here

# observe NAME ARGS... -- COMMAND: a headless run logging to $TMP/NAME.log, the programs' output
# (and the tool's messages) in $TMP/NAME.err.
observe() {
	local name=$1
	shift
	"$BIN" --headless -i 0.5 -o "$TMP/$name.log" "$@" 2>"$TMP/$name.err"
}
# field LOG EXPR: the value of a Python expression over the log's last row of each process
# (rows: the list of those rows, as dicts of strings), printed. The log is CSV or JSONL.
field() {
	"$PY" - "$1" "$2" <<'PYEOF'
import csv, json, sys
text = open(sys.argv[1]).read()
if text.startswith("{"):
    log = [{k: "" if v is None else str(v) for k, v in json.loads(l).items()} for l in text.splitlines()]
else:
    log = list(csv.DictReader(text.splitlines()))
last = {}
for r in log:
    if r["kind"] == "worker":
        last[r["id"]] = r
rows = [last[k] for k in sorted(last, key=int)]
print(eval(sys.argv[2]))
PYEOF
}
no_leftovers() { [ "$(segments_of "$1")" -eq 0 ] && [ "$(children_of "$1")" -eq 0 ]; }

# Known counts: 6 batches of 1 write, 10 launches over 4096 items and 1 read of 16 KiB each.
WANT="[('observed', 60, 6, 6, 98304, 98304, '0')]"
for via in layer preload; do
	observe "c-$via" -n 1 --observe-via "$via" -- "$CNT" 6 10 &
	sup=$!
	wait $sup
	ok $? "C program, $via: the run ends with the program"
	got=$(field "$TMP/c-$via.log" "[(r['source'], int(r['launches']), int(r['batches']), int(r['waits']), int(r['h2d_bytes']), int(r['d2h_bytes']), r['exit_status']) for r in rows]")
	check "C program, $via: launches, batches, waits and bytes exactly ($got)" test "$got" = "$WANT"
	check "C program, $via: seen through the $via" test "$(field "$TMP/c-$via.log" "rows[0]['via']")" = "$via"
	check "C program, $via: no segment, no process left" no_leftovers $sup
done

# --rate-unit NAME:ITEMS: the log's rate in the program's own unit, ITEMS work items a unit.
observe c-unit -n 1 --rate-unit Mbit/s:10 -- "$CNT" 20 10
got=$("$PY" - "$TMP/c-unit.log" <<'PYEOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "aggregate" and r["rate"]]
print(len(rows) > 0 and all(r["rate_unit"] == "Mbit/s" and abs(float(r["rate"]) * 1e7 - float(r["items_s"])) <= 0.001 * float(r["items_s"]) + 1000 for r in rows))
PYEOF
)
check "--rate-unit Mbit/s:10: the rate is the work items per second over 10 million, in Mbit/s ($got)" test "$got" = True

# The program's own output, observed (each line prefixed with its row) and not.
"$CNT" 6 10 >"$TMP/plain.out" 2>&1
sed -n 's/^\[1\] //p' "$TMP/c-preload.err" >"$TMP/observed.out"
check "the program's output is the same observed or not" cmp "$TMP/plain.out" "$TMP/observed.out"
check "the queue's added profiling is hidden from the program" grep -q "profiling=0" "$TMP/observed.out"
check "the errors of failing calls reach the program unchanged, uncounted" grep -q "errors=-36,-53" "$TMP/observed.out"

# Four threads enqueueing at once, each on its own queue, every batch profiled: the counts are
# still exact, the kernels' device time is measured, and the program still sees no profiling.
observe threads -n 1 --profile full --trace "$TMP/threads.trace" -- "$CNT" 5 10 0 4
got=$(field "$TMP/threads.log" "[(int(r['launches']), int(r['batches']), int(r['waits']), int(r['h2d_bytes'])) for r in rows]")
check "4 threads: launches, batches, waits and bytes exactly ($got)" test "$got" = "[(200, 20, 20, 327680)]"
check "4 threads, --profile full: device times measured" test "$(grep -c ',worker,.*,observed,' "$TMP/threads.log")" -gt 0 -a \
	"$("$PY" -c "import csv,sys; print(any(r['kernel_busy'] not in ('', '0.0000') for r in csv.DictReader(open(sys.argv[1])) if r['kind'] == 'worker'))" "$TMP/threads.log")" = True
check "4 threads, --profile full: the program still sees no profiling" test "$(grep -c 'profiling=0' "$TMP/threads.err")" -eq 4
# The trace: a track per thread for the host work between its waits (the first batch of each
# starts at its first command: none before it), and no slices overlapping on one track.
got=$("$PY" - "$TMP/threads.trace" <<'PYEOF'
import json, sys
ev = json.load(open(sys.argv[1]))
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
procs = [e["args"]["name"].split(" (")[0] + " " + e["args"]["name"].split(", ")[1] for e in ev
         if e.get("name") == "process_name" and e["pid"] and ", " in e["args"]["name"]]
per = {}
for e in ev:
    if e.get("name") == "host work":
        per[names[e["pid"], e["tid"]]] = per.get(names[e["pid"], e["tid"]], 0) + 1
print(procs, sorted(per.items()))
PYEOF
)
check "4 threads: a host track per thread, 4 host work slices on each ($got)" \
	test "$got" = "['process 1 cl_counts'] [('thread 1', 4), ('thread 2', 4), ('thread 3', 4), ('thread 4', 4)]"
"$PY" "$ROOT/tools/check_trace.py" "$TMP/threads.trace" >"$TMP/threads.check" 2>&1
ok $? "4 threads: check_trace.py passes the trace"
diag "$TMP/threads.check"

# --profile sampled (the default) on 200 short batches: a queue profiled OBS_RUN_MAX (16) batches
# in a row gets a clean one, whose time measures what profiling costs (doc/observe.md): so not
# every batch is profiled (sample_every 2 or more), and the counts stay exact.
observe sampled -n 1 -- "$CNT" 200 10 &
wait $!
ok $? "sampled, 200 batches: the run ends with the program"
got=$(field "$TMP/sampled.log" "[(int(r['launches']), int(r['batches']), int(r['sample_every'] or 0) >= 2) for r in rows]")
check "sampled, 200 batches: exact counts, a clean batch at least every 17 ($got)" test "$got" = "[(2000, 200, True)]"

# A program that forks 3 children, each using OpenCL: 4 rows, the parent without OpenCL calls;
# --profile off: nothing measured on the device.
observe fork -n 1 --profile off -- "$CNT" 3 10 3
got=$(field "$TMP/fork.log" "sorted(int(r['launches']) for r in rows if r['state'] != 'no OpenCL calls seen')")
check "every forked child is observed ($got)" test "$got" = "[30, 30, 30]"
check "the parent says it made no OpenCL call" test "$(field "$TMP/fork.log" "rows[0]['state'] + ' ' + rows[0]['exit_status']")" = "no OpenCL calls seen 0"
check "--profile off: no device_busy" test -z "$("$PY" -c "import csv,sys; print(''.join(r['device_busy'] for r in csv.DictReader(open(sys.argv[1])) if r['kind'] == 'aggregate'))" "$TMP/fork.log")"

# A program that never uses OpenCL.
observe none -n 1 -- sleep 1
sup_state=$(field "$TMP/none.log" "rows[0]['state']")
check "a program without OpenCL: 'no OpenCL calls seen' ($sup_state)" test "$sup_state" = "no OpenCL calls seen"

# The question's structure in PyOpenCL, 1 and 2 copies (each 1 worker process).
BATCHES=400
SIZE=10000
for n in 1 2; do
	observe "py$n" -n $n -i 0.2 -f jsonl --trace "$TMP/py$n.trace" -- "$PY" "$APP" 1 $BATCHES $SIZE &
	sup=$!
	wait $sup
	ok $? "PyOpenCL x$n: the run ends with the program"
	rows=$(field "$TMP/py$n.log" "len([r for r in rows if int(r['launches']) > 0])")
	check "PyOpenCL x$n: one row per worker process ($rows)" test "$rows" = "$n"
	# Launches exact; batches the program's, or a few more where the loaded host paused it for
	# 50 ms inside one after its commands had completed (published then: doc/observe.md).
	lpb=$(field "$TMP/py$n.log" "sorted({(int(r['launches']), $BATCHES <= int(r['batches']) <= $BATCHES * 21 // 20) for r in rows if int(r['launches']) > 0})")
	check "PyOpenCL x$n: $((BATCHES * 10)) launches in $BATCHES batches, or a few more split by a pause ($lpb)" \
		test "$lpb" = "[($((BATCHES * 10)), True)]"
	# The tool's batches/s x size against what each process printed: per process, the batches
	# that completed (window_batches, by their end) between the end of its first window with a
	# batch and the end of its last, over that time (not its start-up, nor Python's teardown).
	"$PY" - "$TMP/py$n.log" "$TMP/py$n.err" $SIZE <<'PYEOF' >"$TMP/py$n.rate"
import json, re, sys
size = int(sys.argv[3])
by = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["kind"] == "worker" and r.get("launches"):
        by.setdefault(r["id"], []).append(r)
tool = 0.0
for rs in by.values():
    done, t0, n0, t1, n1 = 0, None, 0, None, 0
    for r in rs:
        done += r.get("window_batches", 0)
        if t0 is None and done:
            t0, n0 = r["t_s"], done
        elif t0 is not None and r["state"] == "running" and r.get("window_batches"):
            t1, n1 = r["t_s"], done
    tool += (n1 - n0) * size / (t1 - t0) / 1e6 if t1 else float("nan")
printed = sum(float(m) for m in re.findall(r"^\[\d+\] ([0-9.]+) Mbit/sec", open(sys.argv[2]).read(), re.M))
print(tool, printed, abs(tool - printed) <= 0.1 * printed)
PYEOF
	diag "$TMP/py$n.rate"
	check "PyOpenCL x$n: batches/s x size within 10% of the program's Mbit/s" grep -q "True$" "$TMP/py$n.rate"
	check "PyOpenCL x$n: no segment, no process left" no_leftovers $sup
	# device_busy, the union over every observed process, against the union of the trace's kernels
	# (which puts a batch's kernels where they ran; the log, in the window the batch ended in).
	"$PY" - "$TMP/py$n.trace" "$TMP/py$n.log" >"$TMP/py$n.union" 2>&1 <<'PYEOF'
import json, sys
events = json.load(open(sys.argv[1]))
log = [json.loads(l) for l in open(sys.argv[2])]
kernels = [(e["ts"], e["ts"] + e["dur"]) for e in events if e.get("cat") == "kernel"]
batches = {}
for e in events:
    if e.get("cat") == "kernel":
        batches.setdefault((e["pid"], e["args"]["batch"]), []).append((e["ts"], e["ts"] + e["dur"]))

def union(ivs, a, b):
    total, cs, ce = 0.0, None, None
    for s, e in sorted(ivs) + [(float("inf"), float("inf"))]:
        if cs is not None and s > ce:
            total += max(0.0, min(ce, b) - max(cs, a))
            cs = None
        if cs is None:
            cs, ce = s, e
        else:
            ce = max(ce, e)
    return total

worst, n = 0.0, 0
for row in log:
    if row["kind"] != "aggregate" or "device_busy" not in row:
        continue
    b = row["t_s"] * 1e6
    a = b - row["window_s"] * 1e6
    crossing = [iv for ivs in batches.values() for edge in (a, b)
                if min(s for s, _ in ivs) < edge < max(e for _, e in ivs) for iv in ivs]
    slack = union(crossing, a, b) / (b - a)
    worst = max(worst, abs(union(kernels, a, b) / (b - a) - row["device_busy"]) - slack)
    n += 1
print("# %d windows, worst difference beyond batches across an edge %.4f" % (n, worst))
assert n >= 2 and worst <= 0.02
PYEOF
	ok $? "PyOpenCL x$n: device_busy is the union of the trace's kernels in every window"
	diag "$TMP/py$n.union"
done

# SIGTERM to the tool while the copies run: they are stopped, and nothing is left behind.
"$BIN" --headless -i 0.5 -o "$TMP/stop.log" -n 2 -- "$PY" "$APP" 2 100000 2000 2>"$TMP/stop.err" &
sup=$!
wait_for 60 grep -q ',running,.*,observed,python3,' "$TMP/stop.log"
ok $? "a long PyOpenCL run is observed"
kill -TERM $sup
wait_for 20 gone $sup
ok $? "SIGTERM ends the run"
wait $sup 2>/dev/null
wait_for 10 eval 'test "$(observed_of $sup)" -eq 0'
ok $? "no process of the program is left"
check "no segment is left" test "$(segments_of $sup)" -eq 0

# A command that passes the check but cannot be executed (a directory): the exec's error comes
# back through the child's report pipe as one line, the run fails, nothing is left.
"$BIN" --headless -D 2 -i 0.5 -o "$TMP/dir.csv" -- "$TMP" 2>"$TMP/dir.err" &
sup=$!
wait $sup
check "a command exec refuses ends the run with status 1" test $? -eq 1
check "  saying why in one line: $TMP: Permission denied" grep -qx "gputop-decode: $TMP: Permission denied" "$TMP/dir.err"
check "  and leaving no segment" test "$(segments_of $sup)" -eq 0

# SIGKILL to the tool: nothing of it can act, yet its copy ends (it gets SIGTERM when the tool
# dies), so do the children the copy forked (the sentinel finds them by the run's entry in their
# environment), and the segments are gone (a name is unlinked once both sides have mapped it).
"$BIN" --headless -i 0.2 -o "$TMP/kill.log" -n 1 -- "$CNT" 1000000 10 2 2>"$TMP/kill.err" &
sup=$!
wait_for 60 eval '[ "$(grep -c ",running,.*,observed,cl_counts," "$TMP/kill.log")" -ge 2 ]'
ok $? "a long C program with two children is observed"
copy=$(pgrep -P $sup -x cl_counts)
sentinel=$(pgrep -P $sup -x gputop-sentinel)
check "  its copy runs, a child of the tool" test -n "$copy"
check "  and so does its sentinel" test -n "$sentinel"
check "  and its two children, the tool's grandchildren" test "$(pgrep -P "${copy:-0}" | wc -l)" -eq 2
check "  the run's processes: the copy and its two children" test "$(observed_of $sup)" -eq 3
kill -KILL $sup
wait $sup 2>/dev/null
wait_for 10 gone "${copy:-0}"
ok $? "SIGKILL of the tool: its copy of the program ends too"
wait_for 15 eval '[ "$(observed_of $sup)" -eq 0 ] && gone "${sentinel:-0}"'
ok $? "  and so do the children the copy started, and nothing of the tool is left (its sentinel neither)"
check "  and no segment of the run is left" test "$(segments_of $sup)" -eq 0

# --sweep over copies: each step runs that many copies of the command. A copy forks two
# children that run the OpenCL loop while the copy itself only waits: every copy is ready through
# its children, and the waiting parent keeps no host core, so on two cores the first step's
# prediction is its own rate (counting the parent's core would make it two thirds of it).
"$BIN" --headless --sweep 1,2 -D 2 -i 0.5 -f jsonl -o "$TMP/sweep.log" -- "$CNT" 1000000 10 2 \
	>"$TMP/sweep.out" 2>"$TMP/sweep.err" &
sup=$!
wait $sup
check "--sweep 1,2 -- COMMAND: the sweep ends with status 0" test $? -eq 0
got=$("$PY" - "$TMP/sweep.log" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '"kind":"sweep"' in l]
print([(r["procs"], r["kernel"], r["rate_unit"], r.get("mbit_s", 0) > 0, r.get("predicted_mbit_s") == rows[0].get("mbit_s") if r["procs"] == 1 else None) for r in rows])
PYEOF
)
check "  a measured row for 1 and for 2 copies, the first step's prediction its own rate ($got)" \
	test "$got" = "[(1, 'observed', 'Mitem/s', True, True), (2, 'observed', 'Mitem/s', True, None)]" ||
	diag "$TMP/sweep.out" "$TMP/sweep.err"
check "  the run header names the command observed" test "$("$PY" -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["run"]["options"]["command"][1:])' "$TMP/sweep.log")" = "['1000000', '10', '2']"
check "  the table has both steps" test "$(grep -cE '^ +[12] +1 +[0-9.]+ ' "$TMP/sweep.out")" -eq 2
check "  no copy, child or segment is left" \
	test "$(observed_of $sup)" -eq 0 -a "$(segments_of $sup)" -eq 0
"$BIN" --headless --sweep 1 -D 2 -i 0.5 -o "$TMP/sweepnone.log" -- sleep 5 2>"$TMP/sweepnone.err" >/dev/null
check "--sweep -- a program without OpenCL: status 1, saying no copy ran an OpenCL batch" \
	test $? -eq 1 -a -n "$(grep "sweep: only 0 of 1 copies running OpenCL batches" "$TMP/sweepnone.err")"
