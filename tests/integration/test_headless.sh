#!/usr/bin/env bash
# test_headless.sh: headless runs with real workers on the default OpenCL device: CSV and
# JSONL logs parse, open with the run header (version, host, device, every option as given),
# every worker decodes, the aggregate is the sum of the workers, busy figures stay within
# their bounds, gap percentiles are ordered, no figure is negative (several lanes, estimated
# times), and nothing is left behind.
# tier: device, about 35 s
. "$(dirname "$0")/lib.sh"
CHECK="python3 $ROOT/tests/integration/check_log.py"
# Full profiling: every interval measured, so the busy bounds below hold exactly (under the
# default sampled profiling, unprofiled batches are estimates: test_profile.sh). The runs with
# workers go on until the checks have windows with batches to look at (bounded), then get
# SIGINT: -D 300 is never reached, and only stands for a duration given.
ARGS=(--headless -s 20000 -l 4 -i 0.5 -D 300 --profile full)

for fmt in csv jsonl; do
	"$BIN" "${ARGS[@]}" -n 2 -f "$fmt" -o "$TMP/log.$fmt" 2>"$TMP/err.$fmt" &
	pid=$!
	stop_when 120 $pid measured 14 "$TMP/log.$fmt" # as many windows as the 4 s it once ran
	ok $RC "a 2-worker $fmt run exits 0"
	check "no stderr output in the $fmt run" test ! -s "$TMP/err.$fmt"
	extra=()
	[ "$fmt" = jsonl ] && extra=(--breakdown)
	$CHECK "$TMP/log.$fmt" "$fmt" 2 "${extra[@]}" --percentiles --option procs=2 --option size=20000 \
		--option launches=4 --option 'profile="full"' --option 'format="'$fmt'"' --option duration=300 \
		--option "output=\"$TMP/log.$fmt\"" --option headless=true --option 'generator="box-muller"' \
		>"$TMP/check" 2>&1
	ok $? "$fmt log: the run header first with the options given, well formed, aggregate = sum of workers, 0 <= kernel_busy <= 1, max <= device_busy <= min(1, sum), gap p50 <= p99 in every row${extra:+, breakdown parts add up to the batch time within 8%}"
	diag "$TMP/check"
	check "no segment of the $fmt run is left" test "$(segments_of $pid)" -eq 0
	check "no child of the $fmt run is left" test "$(children_of $pid)" -eq 0
done

# The normal generator the run header names: the mode's own (seed box-muller, the others the
# ziggurat) or the one given. Short runs: the header is what counts (a batch may not complete).
for gen_case in "box-muller|" "ziggurat|-m pipelined --gen-threads 1" "ziggurat|-m kernel-only" \
	"ziggurat|--generator ziggurat" "box-muller|-m pipelined --gen-threads 1 --generator=box-muller"; do
	want=${gen_case%%|*}
	read -r -a gen_args <<<"${gen_case#*|}"
	"$BIN" --headless -s 5000 -l 1 -i 0.2 -D 0.4 -n 1 -f jsonl "${gen_args[@]}" >"$TMP/gen.jsonl" 2>"$TMP/gen.err"
	rc=$?
	python3 - "$TMP/gen.jsonl" "$want" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
opts = rows[0]["run"]["options"]
assert rows[0]["kind"] == "run" and opts["generator"] == sys.argv[2], opts
assert not any(r.get("state") == "failed" or "error" in r for r in rows), "a worker failed"
PY
	ok $((rc | $?)) "${gen_args[*]:-defaults (seed)}: the run header's generator is $want, no worker fails"
	diag "$TMP/gen.err"
done

# Several lanes overlap their batches on the device (pipelined, kernel-only with --queues 3),
# and estimated device times under sampled profiling can overlap a batch's other phases: no
# field of any row is negative; what would have been is in overlap_us and batch_overlap_us.
for mode in seed "pipelined --queues 3" "kernel-only --queues 3"; do
	name=${mode%% *}
	# shellcheck disable=SC2086 # the mode's words are separate arguments
	"$BIN" --headless -m $mode -n 2 -s 20000 -l 2 -i 0.5 -f jsonl -o "$TMP/lanes.$name.jsonl" \
		2>"$TMP/lanes.$name.err" &
	stop_when 120 $! windows_with_batches 6 "$TMP/lanes.$name.jsonl"
	ok $RC "$mode: a 2-worker run exits 0"
	$CHECK "$TMP/lanes.$name.jsonl" jsonl 2 --overlaps >"$TMP/check" 2>&1
	ok $? "$mode: no negative number in any row (breakdown, gaps, percentiles), the overlap fields measured"
	diag "$TMP/check"
done

# Standard output is the default log.
"$BIN" --headless -s 5000 -l 1 -i 0.2 -D 1 -n 1 >"$TMP/stdout.csv"
ok $? "logging to standard output exits 0"
check "standard output gets the CSV header" grep -q '^t_s,kind,id,pid,state' "$TMP/stdout.csv"
check "then the run row" eval 'sed -n 2p "$TMP/stdout.csv" | grep -q "^0\.000,run,.*\"\"version\"\":"'
check "and no other run row" test "$(grep -c '^[0-9.]*,run,' "$TMP/stdout.csv")" -eq 1

# No worker at all: the aggregate is still logged.
"$BIN" --headless -n 0 -i 0.2 -D 0.6 -f jsonl >"$TMP/zero.jsonl"
python3 - "$TMP/zero.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["kind"] == "run" and rows[0]["run"]["options"]["procs"] == 0, rows[0]
rows = rows[1:]
assert rows and all(r["kind"] == "aggregate" and r["procs"] == 0 and r["mbit_s"] == 0 for r in rows), rows
assert not any(k.startswith("gap_") for r in rows for k in r), "percentiles without a gap"
PY
ok $? "with --procs 0 the run row, then only aggregate rows of zero workers, no gap percentiles"

# SIGINT ends a run early with a valid log.
"$BIN" --headless -n 2 -s 20000 -l 2 -i 0.2 -f jsonl -o "$TMP/int.jsonl" &
pid=$!
wait_for 60 grep -qs '"state":"running"' "$TMP/int.jsonl"
# The worker is told the generator, resolved (seed: box-muller).
check "a seed worker's command line carries --generator=box-muller" \
	eval "pgrep -af -- '--worker=/gputop-decode\.$(id -u)\.$pid\.' | grep -q -- '--generator=box-muller'"
kill -INT $pid
wait $pid
ok $? "SIGINT ends a headless run with status 0"
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$TMP/int.jsonl"
ok $? "the log is valid JSONL after SIGINT"
check "no segment after SIGINT" test "$(segments_of $pid)" -eq 0
check "no worker after SIGINT" test "$(children_of $pid)" -eq 0

# --list-devices names the device that runs the tests.
"$BIN" --list-devices >"$TMP/devs"
ok $? "--list-devices exits 0"
check "--list-devices prints P:D lines" grep -qE '^[0-9]+:[0-9]+ ' "$TMP/devs"
