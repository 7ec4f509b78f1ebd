#!/usr/bin/env bash
# test_sweep.sh: a 2-point scaling sweep prints both rows of its table, and the same rows go
# to --output in CSV and JSONL.
. "$(dirname "$0")/lib.sh"

"$BIN" --sweep 1,2 -D 1 -i 0.25 -s 20000 -l 2 -o "$TMP/sweep.csv" >"$TMP/table" 2>"$TMP/err"
ok $? "a 1,2 sweep exits 0"
diag "$TMP/table"
check "the table has a header" grep -qE '^procs +queues .*Mbit/s.*speedup.*%ceiling' "$TMP/table"
check "the table has a row for 1 worker, speedup 1.00x" grep -qE '^ +1 +1 +[0-9.]+ +1\.00x' "$TMP/table"
check "the table has a row for 2 workers" grep -qE '^ +2 +1 +[0-9.]+ +[0-9.]+x' "$TMP/table"
check "headroom is labelled as an estimate" grep -q 'estimate' "$TMP/table"
python3 - "$TMP/sweep.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["procs"]) for r in rows] == [1, 2], rows
assert all(float(r["mbit_s"]) > 0 for r in rows), rows
assert abs(float(rows[0]["speedup"]) - 1) < 1e-9
assert all(0 < float(r["device_busy"]) <= 1 for r in rows), rows
PY
ok $? "--output gets the two sweep rows in CSV"

"$BIN" --sweep 2,1 -D 0.5 -i 0.25 -s 20000 -l 2 -f jsonl -o "$TMP/sweep.jsonl" >/dev/null 2>&1 &
pid=$!
wait $pid
python3 - "$TMP/sweep.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["procs"] for r in rows] == [2, 1] and all(r["kind"] == "sweep" for r in rows), rows
PY
ok $? "a descending sweep in JSONL stops workers between steps"
check "no segment is left by the sweep" test "$(segments_of $pid)" -eq 0
check "no worker is left by the sweep" test "$(children_of $pid)" -eq 0
