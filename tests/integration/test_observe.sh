#!/usr/bin/env bash
# test_observe.sh: gputop-decode -- COMMAND observes an unmodified OpenCL program through
# libgputop-observe.so, as a loader layer and by LD_PRELOAD: a C program with known launches,
# transfers and waits gives exactly those counts on either path; a program that forks children
# that use OpenCL is observed in every child; one without OpenCL says so; the program's output is
# the same observed or not; a PyOpenCL program of the question's structure, 1 and 2 copies, gives
# 10 launches a batch and a rate within 10% of the one it prints. Nothing is left behind.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
APP="$ROOT/tests/observe/seed_app.py"
CNT="$TMP/cl_counts"
cc -std=c11 -D_GNU_SOURCE -O2 -o "$CNT" "$ROOT/tests/observe/cl_counts.c" -lOpenCL
check "the C test program builds" test -x "$CNT"

# observe NAME ARGS... -- COMMAND: a headless run logging to $TMP/NAME.log, the programs' output
# (and the tool's messages) in $TMP/NAME.err.
observe() {
	local name=$1
	shift
	"$BIN" --headless -i 0.5 -o "$TMP/$name.log" "$@" 2>"$TMP/$name.err"
}
# field LOG EXPR: the value of a Python expression over the log's last row of each process
# (rows: the list of those rows, as dicts), printed.
field() {
	"$PY" - "$1" "$2" <<'PYEOF'
import csv, sys
last = {}
for r in csv.DictReader(open(sys.argv[1])):
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

# The program's own output, observed (each line prefixed with its row) and not.
"$CNT" 6 10 >"$TMP/plain.out" 2>&1
sed -n 's/^\[1\] //p' "$TMP/c-preload.err" >"$TMP/observed.out"
check "the program's output is the same observed or not" cmp "$TMP/plain.out" "$TMP/observed.out"
check "the queue's added profiling is hidden from the program" grep -q "profiling=0" "$TMP/observed.out"

# A program that forks 3 children, each using OpenCL: 4 rows, the parent without OpenCL calls.
observe fork -n 1 -- "$CNT" 3 10 3
got=$(field "$TMP/fork.log" "sorted(int(r['launches']) for r in rows if r['state'] != 'no OpenCL calls seen')")
check "every forked child is observed ($got)" test "$got" = "[30, 30, 30]"
check "the parent says it made no OpenCL call" test "$(field "$TMP/fork.log" "rows[0]['state'] + ' ' + rows[0]['exit_status']")" = "no OpenCL calls seen 0"

# A program that never uses OpenCL.
observe none -n 1 -- sleep 1
sup_state=$(field "$TMP/none.log" "rows[0]['state']")
check "a program without OpenCL: 'no OpenCL calls seen' ($sup_state)" test "$sup_state" = "no OpenCL calls seen"

# The question's structure in PyOpenCL, 1 and 2 copies (each 1 worker process).
BATCHES=40
SIZE=20000
for n in 1 2; do
	observe "py$n" -n $n -i 0.25 -- "$PY" "$APP" 1 $BATCHES $SIZE &
	sup=$!
	wait $sup
	ok $? "PyOpenCL x$n: the run ends with the program"
	rows=$(field "$TMP/py$n.log" "len([r for r in rows if int(r['launches']) > 0])")
	check "PyOpenCL x$n: one row per worker process ($rows)" test "$rows" = "$n"
	lpb=$(field "$TMP/py$n.log" "sorted({(int(r['launches']), int(r['batches'])) for r in rows if int(r['launches']) > 0})")
	check "PyOpenCL x$n: $BATCHES batches of 10 kernel launches ($lpb)" test "$lpb" = "[($((BATCHES * 10)), $BATCHES)]"
	# The tool's batches/s x size against what each process printed: per process, the batches it
	# completed between its first window with a batch and its last while running, over that time.
	"$PY" - "$TMP/py$n.log" "$TMP/py$n.err" $SIZE <<'PYEOF' >"$TMP/py$n.rate"
import csv, re, sys
size = int(sys.argv[3])
by = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["kind"] == "worker" and r["state"] == "running" and r["batches"] not in ("", "0"):
        by.setdefault(r["id"], []).append(r)
tool = 0.0
for rs in by.values():
    first, last = rs[0], rs[-1]
    span = float(last["t_s"]) - float(first["t_s"])
    tool += (int(last["batches"]) - int(first["batches"])) * size / span / 1e6 if span > 0 else float("nan")
printed = sum(float(m) for m in re.findall(r"^\[\d+\] ([0-9.]+) Mbit/sec", open(sys.argv[2]).read(), re.M))
print(tool, printed, abs(tool - printed) <= 0.1 * printed)
PYEOF
	diag "$TMP/py$n.rate"
	check "PyOpenCL x$n: batches/s x size within 10% of the program's Mbit/s" grep -q "True$" "$TMP/py$n.rate"
	check "PyOpenCL x$n: no segment, no process left" no_leftovers $sup
done
