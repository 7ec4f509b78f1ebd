#!/usr/bin/env bash
# test_sweep.sh: a 2-point scaling sweep prints both rows of its table, and the same rows go
# to --output in CSV and JSONL after the run header; a step that completes no batch is n/a,
# never 0.00 (a slow user kernel's too); with --repeat 3 every step runs three times, the log has each run and the
# summaries, and the table shows the spread.
# tier: device, about 35 s
. "$(dirname "$0")/lib.sh"

"$BIN" --sweep 1,2 -D 1 -i 0.25 -s 20000 -l 2 -o "$TMP/sweep.csv" >"$TMP/table" 2>"$TMP/err"
ok $? "a 1,2 sweep exits 0"
diag "$TMP/table"
check "the table has a header" grep -qE '^procs +queues .*Mbit/s.*speedup.*%ceiling' "$TMP/table"
check "the table has a row for 1 worker, predicted as measured, speedup 1.00x" \
	grep -qE '^ +1 +1 +([0-9.]+) +\1 +1\.00x' "$TMP/table"
check "the table has a row for 2 workers, with a prediction" grep -qE '^ +2 +1 +[0-9.]+ +[0-9.]+ +[0-9.]+x' "$TMP/table"
check "the table heads the prediction and says what it is" eval \
	'grep -qE "^procs +queues +Mbit/s +predicted +speedup" "$TMP/table" && grep -q "^predicted: the first step" "$TMP/table"'
# One pipelined process: never above the first step's rate at 100% busy (its device bound).
check "the footer says what one pipelined process would reach, at most the first step's at100%busy~" python3 -c '
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"^one pipelined process would reach about ([0-9.]+) \(from the first step", t, re.M)
first = re.search(r"^ +1 +1 +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9.]+ +\S+ +\S+ +([0-9.]+) ", t, re.M)
sys.exit(0 if m and first and 0 < float(m.group(1)) <= float(first.group(1)) * 1.001 + 0.05 else 1)
' "$TMP/table"
check "the table heads the estimate at100%busy~ and the room left to it" \
	grep -qE '^procs +queues .* gap_batch_us +at100%busy~ +room ' "$TMP/table"
check "and says what they are, an estimate" \
	grep -q '^at100%busy~ is an estimate: Mbit/s / device busy, the rate if the device never idled; room: at100%busy~ less Mbit/s' "$TMP/table"
check "every step was measured: no n/a note, no 0.00 rate" eval '! grep -qE "^n/a:| 0\.00 " "$TMP/table"'
python3 - "$TMP/sweep.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows[0]["kind"] == "run" and '"sweep":"1,2"' in rows[0]["run"], rows[0]
rows = rows[1:]
assert [r["kind"] for r in rows] == ["sweep", "sweep"], rows
assert [int(r["procs"]) for r in rows] == [1, 2], rows
assert all(float(r["mbit_s"]) > 0 for r in rows), rows
assert abs(float(rows[0]["speedup"]) - 1) < 1e-9
assert all(0 < float(r["device_busy"]) <= 1 for r in rows), rows
# The prediction from the first step: itself for it; for two workers no more than twice its
# rate, and at least the first step's (filling idle time never loses any).
p = [float(r["predicted_mbit_s"]) for r in rows]
assert abs(p[0] - float(rows[0]["mbit_s"])) < 1e-3, rows[0]
assert float(rows[0]["mbit_s"]) - 1e-3 <= p[1] <= 2 * float(rows[0]["mbit_s"]) + 1e-3, rows
PY
ok $? "--output gets the run row, then the two sweep rows in CSV, each with its predicted_mbit_s"

# A step whose duration is shorter than one batch (about 2 s on PoCL on a 2-core machine: 400
# launches of 100000 symbols; the step measures from one interval after a batch completed, for
# 0.05 s) completes no batch while it is measured: not measured, n/a, never 0.00.
"$BIN" --sweep 1 -D 0.05 -i 0.05 -s 100000 -l 400 -o "$TMP/na.csv" >"$TMP/na.table" 2>"$TMP/na.err"
ok $? "a sweep whose step completes no batch exits 0"
diag "$TMP/na.table"
check "its row says n/a for the rate, busy and the estimate, no speedup" \
	grep -qE '^ +1 +1 +n/a +n/a +n/a +n/a +n/a +n/a +n/a' "$TMP/na.table"
check "the note under the table names the step not measured" \
	grep -q '^n/a: step 1 (1x1): not measured, no batch completed in its windows' "$TMP/na.table"
check "no 0.00 anywhere in the table" eval '! grep -q "0\.00" "$TMP/na.table"'
check "the progress line says so too" grep -q 'sweep 1/1: 1x1, not measured (no batch completed)' "$TMP/na.err"
python3 - "$TMP/na.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "sweep"]
assert len(rows) == 1 and rows[0]["runs"] == "1", rows
for k in ("mbit_s", "speedup", "device_busy", "headroom", "mbit_s_min", "mbit_s_max"):
    assert rows[0][k] == "", (k, rows[0])
PY
ok $? "the log's row leaves the rate and the figures from it empty, never 0"

# The same with a user kernel slow on PoCL (a batch of 2000 items of 20000 dependent steps takes
# seconds on 2 cores, against a step measured for 0.05 s after one interval): the step keeps its
# row of n/a with the note, in the table and the log, in the kernel's unit.
UK=(--kernel "$ROOT/kernels/examples/compute.cl" --build-options -DITERS=20000 -s 2000 -l 1)
"$BIN" --sweep 1 -D 0.05 -i 0.05 "${UK[@]}" -o "$TMP/uk.csv" >"$TMP/uk.table" 2>"$TMP/uk.err"
ok $? "a sweep of a slow user kernel whose step completes no batch exits 0"
diag "$TMP/uk.table"
check "its step stands as a row of n/a" grep -qE '^ +1 +1 +n/a +n/a +n/a +n/a +n/a +n/a +n/a' "$TMP/uk.table"
check "the note names the step" grep -q '^n/a: step 1 (1x1): not measured, no batch completed' "$TMP/uk.table"
python3 - "$TMP/uk.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "sweep"]
assert len(rows) == 1 and rows[0]["procs"] == "1" and rows[0]["rate_unit"] == "Mitem/s", rows
assert rows[0]["kernel"] == "compute" and rows[0]["rate"] == rows[0]["mbit_s"] == "", rows
PY
ok $? "the log has the step's row: its kernel and unit, the rate empty"

"$BIN" --sweep 2,1 -D 0.5 -i 0.25 -s 20000 -l 2 -f jsonl -o "$TMP/sweep.jsonl" >/dev/null 2>&1 &
pid=$!
wait $pid
python3 - "$TMP/sweep.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["kind"] == "run" and rows[0]["run"]["options"]["sweep"] == "2,1", rows[0]
rows = rows[1:]
assert [r["procs"] for r in rows] == [2, 1] and all(r["kind"] == "sweep" for r in rows), rows
PY
ok $? "a descending sweep in JSONL stops workers between steps"
check "no segment is left by the sweep" test "$(segments_of $pid)" -eq 0
check "no worker is left by the sweep" test "$(children_of $pid)" -eq 0

# --repeat 3: the list runs three times over; each run is logged, then each step's summary.
"$BIN" --sweep 1,2 --repeat 3 -D 0.3 -i 0.1 -s 5000 -l 2 -o "$TMP/rep.csv" >"$TMP/rep.table" 2>"$TMP/rep.err"
ok $? "a 1,2 sweep with --repeat 3 exits 0"
diag "$TMP/rep.table"
check "6 runs reported as they end, 3 of each step" \
	test "$(grep -c 'sweep [1-6]/6: 1x1 (run [1-3] of 3)' "$TMP/rep.err")" -eq 3 -a \
	"$(grep -c 'sweep [1-6]/6: 2x1 (run [1-3] of 3)' "$TMP/rep.err")" -eq 3
python3 "$ROOT/tests/integration/check_log.py" "$TMP/rep.csv" csv --sweep 2 3 --option repeat=3 \
	--option 'sweep="1,2"' --option duration=0.3 >"$TMP/rep.check" 2>&1
ok $? "the log: run header, 3 repeat rows of each step in passes, summaries whose mean, min, max, sd and noise note follow from them"
diag "$TMP/rep.check"
check "the table has the spread's columns" grep -qE '^procs +queues +Mbit/s +sd +min +max +predicted +speedup +min\.\.max' "$TMP/rep.table"
check "a row per step with mean, sd, min, max, predicted, speedup and its range" \
	test "$(grep -cE '^ +[12] +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9.]+\.\.[0-9.]+ ' "$TMP/rep.table")" -eq 2
check "the table says what the figures are over" grep -q 'mean of 3 runs' "$TMP/rep.table"
check "and what the noise note means" grep -q '^~: differs from the step above by less than their spread' "$TMP/rep.table"
python3 - "$TMP/rep.csv" "$TMP/rep.table" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "sweep"]
lines = [l for l in open(sys.argv[2]) if l.lstrip().startswith("2 ")]
assert len(lines) == 1 and ("~" in lines[0]) == (rows[1]["within_spread"] == "1"), (lines, rows[1])
PY
ok $? "the table's noise note on the second step agrees with the log's within_spread"

# An interrupted --repeat sweep still logs the summaries of the runs it completed.
"$BIN" --sweep 1,2 --repeat 3 -D 0.3 -i 0.1 -s 5000 -l 2 -o "$TMP/int.csv" >"$TMP/int.table" 2>"$TMP/int.err" &
S=$!
wait_for 120 eval 'test "$(grep -c ",repeat," "$TMP/int.csv" 2>/dev/null)" -ge 2'
ok $? "the interrupted sweep logged two runs"
kill -INT $S
wait $S
python3 - "$TMP/int.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
reps = [r for r in rows if r["kind"] == "repeat"]
sums = [r for r in rows if r["kind"] == "sweep"]
assert len(sums) == 2 and sum(int(s["runs"]) for s in sums) == len(reps), (len(reps), [s["runs"] for s in sums])
PY
ok $? "after SIGINT a summary row of each step, over the runs it completed"
