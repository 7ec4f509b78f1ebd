#!/usr/bin/env bash
# test_fields.sh: --fields and --no-header with real workers. A CSV log has exactly the columns
# named, in their order (a JSONL-only field too), every row as many cells; a JSONL log only
# those keys, in that order; --no-header drops the line of names; a sweep's log takes the sweep
# rows' fields; a name that is no field exits 2 with one line naming it, nothing started and no
# log created. --fields help and --help-fields list every field with its unit and help; a log
# piped into head ends the run with status 0, nothing on stderr, no process or segment left.
# The rate and items under their names for every mode agree with their old names, and the
# README's example header is the binary's.
# tier: fast, about 12 s
. "$(dirname "$0")/lib.sh"
ARGS=(-n 2 -s 5000 -l 2 -i 0.25)
on_exit 'stop_started; tap_cleanup'

# run NAME CONDITION...: a headless run (lib.sh's start) until the condition holds of its log
# (bounded), then SIGINT; ok when it exits 0.
run() {
	local name=$1
	shift
	local cond=("$@")
	start "$name" "${ARGS[@]}" "${RUN_ARGS[@]}"
	wait_for 120 "${cond[@]}" "$TMP/$name.log"
	kill -INT "$SUP"
	wait "$SUP"
}
# measured LOG: a window in which the workers completed batches: an aggregate row with a rate
# above 0 (CSV: the 5th column below), a worker row with one (JSONL).
csv_measured() { grep -qE '^[0-9.]+,aggregate,,,[0-9.]*[1-9][0-9.]*,[0-9.]+,' "$1"; }
jsonl_measured() { grep -qE '"kind":"worker",.*"mbit_s":[0-9.]*[1-9]' "$1"; }

# ---- A name that is no field: exit 2, one line naming it, nothing started ----
refused() { # refused DESCRIPTION EXPECTED-TEXT ARGS...
	local desc=$1 want=$2
	shift 2
	rm -f "$TMP/bad.log"
	"$BIN" "$@" -o "$TMP/bad.log" >"$TMP/bad.out" 2>"$TMP/bad.err" &
	local pid=$!
	wait $pid
	local rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && grep -qF -- "$want" "$TMP/bad.err" &&
		[ ! -e "$TMP/bad.log" ] && [ ! -s "$TMP/bad.out" ] && [ "$(segments_of $pid)" -eq 0 ]
	ok $? "$desc: exit 2, one line naming it, no log, no segment (status $rc)"
	[ $rc -eq 2 ] || diag "$TMP/bad.err"
}
refused "--fields with an unknown name" "--fields: unknown field 'zzz' (the log rows' fields" \
	--headless "${ARGS[@]}" --fields t_s,zzz
refused "--fields with a name near a field's" "--fields: unknown field 'mbits' (did you mean mbit_s?)" \
	--headless "${ARGS[@]}" --fields t_s,mbits
refused "--fields with an empty name" "--fields: an empty field name" --headless "${ARGS[@]}" --fields t_s,,kind
refused "--fields with a name twice" "--fields: field 'kind' is listed twice" --headless "${ARGS[@]}" \
	--fields kind,t_s,kind
refused "a sweep's --fields with a frame field" "--fields: unknown field 't_s'" \
	--headless --sweep 1 -D 1 --fields procs,t_s

# ---- --fields help and --help-fields: every field with its unit and help, nothing run ----
"$BIN" --headless "${ARGS[@]}" --fields help >"$TMP/help.out" 2>"$TMP/help.err"
ok $? "--fields help (with a run's options) exits 0"
check "  nothing on standard error" test ! -s "$TMP/help.err"
"$BIN" --help-fields >"$TMP/help2.out" 2>&1
check "--help-fields prints the same list" cmp -s "$TMP/help.out" "$TMP/help2.out"
"$BIN" --help-fields --sweep 1,2 >"$TMP/help_sw.out" 2>&1
python3 - "$TMP/help.out" "$TMP/help_sw.out" >"$TMP/help.py" 2>&1 <<'PY'
import re, sys
def fields(path):
    lines = open(path).read().splitlines()
    assert lines[1].split()[:2] == ["FIELD", "UNIT"], lines[1]
    return {l.split()[0]: l for l in lines[2:]}
log, sweep = fields(sys.argv[1]), fields(sys.argv[2])
assert not [l for l in list(log.values()) + list(sweep.values()) if "(no help)" in l]
assert re.match(r"t_s +s +all +End of the window", log["t_s"]), log["t_s"]
assert re.match(r"mbit_s +Mbit/s +all ", log["mbit_s"]), log["mbit_s"]
assert re.match(r"rate +Mbit/s +all ", log["rate"]), log["rate"]
assert "Deprecated alias of rate" in log["mbit_s"] and "Deprecated alias of items" in log["symbols"]
assert re.match(r"items_s +1/s +all ", log["items_s"]) and re.match(r"batches_s +1/s +all ", log["batches_s"])
assert re.match(r"rate +Mbit/s ", sweep["rate"]) and "Deprecated" in sweep["predicted_mbit_s"]
assert re.match(r"kernel_busy +0\.\.1 +worker ", log["kernel_busy"])
assert log["window_s"].endswith("(JSONL only)") and log["kind"].split()[1] == "all"
assert "speedup" in sweep and "t_s" not in sweep and "speedup" not in log
print(len(log), "log fields,", len(sweep), "sweep fields")
PY
ok $? "every field has its help, units as the registry says; --sweep lists the sweep rows'"
diag "$TMP/help.py"
# The README's example header is the log's: every CSV field, in --fields help's order.
csv_fields=$(sed -n '3,$p' "$TMP/help.out" | grep -v '(JSONL only)$' | awk '{ print $1 }' | paste -sd,)
check "the README's CSV header is the binary's" \
	test "$(grep -m1 '^t_s,kind,id,pid,' "$ROOT/README.md")" = "$csv_fields"

device_from_here
# ---- A log piped into head: the reader leaving ends the run, quietly ----
# head -2 takes the CSV header and the run row, then closes the pipe: the next frame's write
# meets EPIPE. -D bounds a run that would not end.
"$BIN" --headless "${ARGS[@]}" -D 60 > >(head -2 >"$TMP/head.out") 2>"$TMP/head.err" &
HP=$!
SUPS+=("$HP")
wait $HP
rc=$?
check "a log piped into head ends with status 0 (status $rc)" test $rc -eq 0
check "  nothing on standard error" test ! -s "$TMP/head.err"
diag "$TMP/head.err"
check "  no worker and no segment left" test "$(workers_of $HP)" -eq 0 -a "$(segments_of $HP)" -eq 0
want=$(sed -n '3,$p' "$TMP/help.out" | grep -v '(JSONL only)$' | awk '{ print $1 }' | paste -sd,)
check "  its header, every CSV field, in --fields help's order" test "$(head -1 "$TMP/head.out")" = "$want"
"$BIN" --headless -i 0.25 -D 60 -- sleep 60 > >(head -1 >/dev/null) 2>"$TMP/heado.err" &
HP=$!
SUPS+=("$HP")
wait $HP
rc=$?
check "observing a program: the same, status 0 (status $rc), no line but the 'observing' one" \
	test $rc -eq 0 -a "$(grep -vc '^gputop-decode: observing sleep' "$TMP/heado.err")" -eq 0
check "  the program is stopped, no segment left" test "$(observed_of $HP)" -eq 0 -a "$(segments_of $HP)" -eq 0

# ---- CSV: those columns, in that order ----
COLS=t_s,kind,id,state,mbit_s,device_busy,window_s,error,rate,items,symbols,items_s,batches_s
RUN_ARGS=(--fields "$COLS")
run f csv_measured
ok $? "a CSV run with --fields ends with status 0"
check "the header is the list given, in its order" test "$(head -1 "$TMP/f.log")" = "$COLS"
python3 - "$TMP/f.log" "$COLS" >"$TMP/csv.out" 2>&1 <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
cols = sys.argv[2].split(",")
assert rows[0] == cols, rows[0]
assert all(len(r) == len(cols) for r in rows), [r for r in rows if len(r) != len(cols)][:3]
rows = [dict(zip(cols, r)) for r in rows[1:]]
kinds = [r["kind"] for r in rows]
assert kinds[0] == "run" and "worker" in kinds and "aggregate" in kinds, kinds
workers = [r for r in rows if r["kind"] == "worker"]
assert all(r["id"] in ("1", "2") and r["state"] for r in workers), workers
agg = [r for r in rows if r["kind"] == "aggregate"]
assert all(float(r["window_s"]) > 0 and r["id"] == "" and r["state"] == "" for r in agg), agg
assert any(r["device_busy"] for r in agg)
# The fields named for what they hold: the rate and items as their old names, the items and
# batches per second beside them, all empty together in a window that measured no rate.
for r in workers + agg:
    assert r["rate"] == r["mbit_s"] and r["items"] == r["symbols"], r
    assert (r["items_s"] == "") == (r["rate"] == "") == (r["batches_s"] == ""), r
    if r["rate"]:
        assert abs(float(r["items_s"]) / 1e6 - float(r["rate"])) <= 5e-5, r
        assert float(r["batches_s"]) >= 0, r
assert any(r["batches_s"] and float(r["batches_s"]) > 0 for r in agg), agg
print(len(rows), "rows")
PY
ok $? "every row has exactly those cells; worker rows their id and state, aggregates a window_s column"
diag "$TMP/csv.out"

# ---- --no-header ----
RUN_ARGS=(--fields t_s,kind --no-header)
run nh grep -qs ',aggregate$'
ok $? "a CSV run with --no-header ends with status 0"
check "the first line is the run row, no line of names" test "$(head -1 "$TMP/nh.log")" = "0.000,run"
check "every line has the two cells" test "$(grep -cvE '^[0-9]+\.[0-9]{3},(run|worker|aggregate)$' "$TMP/nh.log")" -eq 0

# ---- JSONL: only those keys, in that order ----
RUN_ARGS=(-f jsonl --fields kind,t_s,id,mbit_s)
run fj jsonl_measured
ok $? "a JSONL run with --fields ends with status 0"
python3 - "$TMP/fj.log" >"$TMP/jsonl.out" 2>&1 <<'PY'
import json, sys
cols = ["kind", "t_s", "id", "mbit_s"]
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in rows:
    keys = list(r)
    # the keys given, in their order, less those the row does not carry or did not measure
    assert keys == [k for k in cols if k in r], keys
assert list(rows[0]) == ["kind", "t_s"] and rows[0]["kind"] == "run", rows[0]
workers = [list(r) for r in rows if r["kind"] == "worker"]
assert cols in workers, workers
assert all(list(r) == ["kind", "t_s", "mbit_s"] for r in rows if r["kind"] == "aggregate" and "mbit_s" in r)
print(len(rows), "rows")
PY
ok $? "JSONL rows have only those keys, in that order; a worker row all four"
diag "$TMP/jsonl.out"

# ---- A sweep's log: the sweep rows' fields ----
"$BIN" --headless --sweep 1 -s 5000 -l 2 -i 0.25 -D 1 --fields kind,procs,mbit_s -o "$TMP/sw.csv" \
	>"$TMP/sw.txt" 2>"$TMP/sw.err"
ok $? "a sweep with --fields exits 0"
check "its log: the header given, the run row, one sweep row" \
	test "$(head -1 "$TMP/sw.csv")" = kind,procs,mbit_s -a "$(grep -c '^sweep,1,' "$TMP/sw.csv")" -eq 1
