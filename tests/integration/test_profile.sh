#!/usr/bin/env bash
# test_profile.sh: the profiling policies (--profile full|sampled|off), queues per worker
# (--queues, PxQ sweep steps) and the calibrated ceiling (--calibrate), on real workers. Bounds
# and presence only: nothing here depends on how fast this machine is.
# tier: fast, about 65 s
. "$(dirname "$0")/lib.sh"

"$BIN" --headless -m seed --queues 2 -D 1 >"$TMP/seedq.out" 2>"$TMP/seedq.err"
ok $(($? == 2 ? 0 : 1)) "--queues 2 in seed mode: exit 2"
check "  and one line naming --queues" eval '[ "$(wc -l <"$TMP/seedq.err")" -eq 1 ] && grep -q -- "--queues" "$TMP/seedq.err"'

device_from_here

SMALL=(-s 20000 -l 3 -i 0.5)
# The runs go on until their worker completed batches in 4 windows (bounded), then get SIGINT.
# run_until LOG ARGS...: such a run of the tool, headless, its JSONL log in LOG; its status in RC.
run_until() {
	local log=$1
	shift
	"$BIN" --headless "$@" -f jsonl -o "$log" &
	stop_when 120 $! windows_with_batches 4 "$log"
}

# has LOG KIND FIELD: every row of KIND of the windows in which batches completed, after the
# first such window (it holds the start-up), carries FIELD. (Windows before the first batch
# measure nothing; on a loaded machine there may be several.)
has() {
	python3 - "$@" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
busy = sorted({r["t_s"] for r in rows if r["kind"] == "worker" and r.get("window_batches", 0) > 0})
rows = [r for r in rows if r["kind"] == sys.argv[2] and r["t_s"] in busy[1:]]
sys.exit(not rows or any(sys.argv[3] not in r for r in rows))
PY
}

for p in full sampled off; do
	run_until "$TMP/$p.jsonl" -m seed -n 1 "${SMALL[@]}" --profile $p 2>"$TMP/$p.err"
	ok $RC "--profile $p runs"
	check "--profile $p: every aggregate row names its policy" \
		python3 -c "import json,sys; rows=[json.loads(l) for l in open(sys.argv[1])]; agg=[r for r in rows if r['kind']=='aggregate']; sys.exit(not agg or any(r['profile']!=sys.argv[2] for r in agg))" "$TMP/$p.jsonl" $p
done
for p in full sampled; do
	check "--profile $p: kernel busy, queue wait and device busy are measured" eval \
		'has "$TMP/$p.jsonl" worker kernel_busy && has "$TMP/$p.jsonl" worker queue_wait_us && has "$TMP/$p.jsonl" aggregate device_busy'
done
for f in kernel_busy queue_wait_us h2d_us gap_kernel_us; do
	check "--profile off: no $f" ! has "$TMP/off.jsonl" worker $f
done
check "--profile off: no device busy" ! has "$TMP/off.jsonl" aggregate device_busy
check "--profile off: the host's generation time is still measured" has "$TMP/off.jsonl" worker gen_us
check "--profile off: the aggregate says no device time was mapped" \
	grep -q '"kind":"aggregate".*"device_busy_method":"none"' "$TMP/off.jsonl"

# Sampled 2 in 4 on kernel-only: estimated batches fill the windows like measured ones (the
# comparison with full profiling is a measurement, not a test: bench/ and doc/PERFORMANCE.md).
run_until "$TMP/ks.jsonl" -m kernel-only -n 1 "${SMALL[@]}" --sample-every 4 2>/dev/null
python3 - "$TMP/ks.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][2:]
# Windows in which a batch completed (on a loaded machine, under a sanitizer, one may have none).
wk = [r for r in rows if r["kind"] == "worker" and r.get("window_batches", 0) > 0]
busy_t = {r["t_s"] for r in wk}
agg = [r for r in rows if r["kind"] == "aggregate" and r["t_s"] in busy_t]
assert wk and agg and all(0 < r["device_busy"] <= 1 for r in agg), agg
assert all(r["kernel_busy"] > 0 and r["kernel_us"] > 0 for r in wk), wk
PY
ok $? "kernel-only, sampled 2 in 4: device busy in (0, 1] and kernel time in every window with a batch"

# The physical bound with several lanes: a device does no more work per busy second than its
# ceiling, so device_busy >= of_ceiling (the sampled estimate once stacked the lanes' estimates
# and read a fifth of that). Over the run's windows with a batch, 0.1 allowed: the ceiling is
# measured on this machine's CPU, which the rest of the machine's load moves.
for m in pipelined kernel-only; do
	run_until "$TMP/bound$m.jsonl" -m $m --queues 3 -n 1 "${SMALL[@]}" --calibrate 2>/dev/null
	check "--mode $m --queues 3, sampled: device busy >= rate / ceiling" python3 - "$TMP/bound$m.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
busy_t = {r["t_s"] for r in rows if r["kind"] == "worker" and r.get("window_batches", 0) > 0}
agg = [r for r in rows if r["kind"] == "aggregate" and r["t_s"] in busy_t and r["t_s"] > 0.5]
assert agg, "no window with a batch"
busy = sum(r["device_busy"] for r in agg) / len(agg)
share = sum(r["of_ceiling"] for r in agg) / len(agg)
print("# device_busy %.3f, of_ceiling %.3f" % (busy, share))
# Near or above 1 the ceiling is stale (measured under other load, or under a sanitizer): the
# bound asked is at most 0.8, which the old stacked estimate (a fifth of the truth) fails.
assert busy >= min(share, 0.9) - 0.1, (busy, share)
PY
done

# Queues: several in-order queues of one context, every batch still checked.
for m in pipelined kernel-only; do
	run_until "$TMP/q$m.jsonl" -m $m --queues 3 -n 1 "${SMALL[@]}" --verify 2>"$TMP/q$m.err"
	ok $RC "--mode $m --queues 3 --verify runs"
	check "--mode $m --queues 3: batches complete and none failed" python3 -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
w = [r for r in rows if r['kind'] == 'worker']
sys.exit(not w or w[-1]['batches'] == 0 or any(r['state'] == 'failed' for r in w))" "$TMP/q$m.jsonl"
done

# The calibrated ceiling on aggregate rows, and of_ceiling = mbit_s / ceiling. At 1000 symbols a
# batch is short on any machine (under 10 ms at 0.1 Mbit/s), so the calibration measures 4x the
# size as well.
run_until "$TMP/cal.jsonl" -m kernel-only -n 1 -s 1000 -l 2 -i 0.5 --calibrate 2>"$TMP/cal.err"
ok $RC "--calibrate runs before the workers"
python3 - "$TMP/cal.jsonl" <<'PY'
import json, sys
agg = [json.loads(l) for l in open(sys.argv[1])]
agg = [r for r in agg if r["kind"] == "aggregate"]
assert agg and all(r["ceiling"] > 0 for r in agg), agg
assert len({r["ceiling"] for r in agg}) == 1
for r in agg:
    if "mbit_s" not in r:  # no batch completed in the window: no rate, no share of the ceiling
        assert "of_ceiling" not in r, r
        continue
    assert abs(r["of_ceiling"] - r["mbit_s"] / r["ceiling"]) < 1e-3, r
assert any("mbit_s" in r for r in agg), agg
PY
ok $? "every aggregate row carries the same ceiling, and of_ceiling = mbit_s / ceiling (none without a rate)"
python3 - "$TMP/cal.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
agg = [r for r in rows if r["kind"] == "aggregate"]
assert all(r.get("ceiling_4x", 0) > 0 for r in agg), agg
assert len({r["ceiling_4x"] for r in agg}) == 1, agg
assert not any("ceiling_4x" in r for r in rows if r["kind"] == "worker")
PY
ok $? "a short batch: every aggregate row carries the ceiling at 4x the size, measured once"
"$BIN" -m kernel-only --sweep 1 -D 1 -s 1000 -l 2 -i 0.5 --calibrate >"$TMP/cal4.table" 2>"$TMP/cal4.err"
ok $? "a sweep with --calibrate at a short batch"
check "its table says the ceiling and its figure at 4x the size, and whose bound it is" \
	grep -qE "^ceiling: [0-9.]+ Mbit/s at this size; 4x the size: [0-9.]+ Mbit/s, [-+][0-9]+% \((launch costs bound this size|the device's bound)\)$" "$TMP/cal4.table"

# Processes against queues in one command.
"$BIN" -m kernel-only --sweep 1x1,1x2,2x1 -D 1 "${SMALL[@]}" --calibrate -f jsonl -o "$TMP/pxq.jsonl" \
	>"$TMP/pxq.table" 2>"$TMP/pxq.err"
ok $? "a PxQ sweep runs"
diag "$TMP/pxq.table"
python3 - "$TMP/pxq.jsonl" <<'PY'
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r["kind"] != "run"]
assert [(r["procs"], r["queues"]) for r in rows] == [(1, 1), (1, 2), (2, 1)], rows
assert all(r["mbit_s"] > 0 and r["of_ceiling"] > 0 for r in rows), rows
PY
ok $? "the sweep's rows say procs and queues, with the share of the ceiling"
check "the table has a queues and a %ceiling column" grep -qE '^procs +queues .*%ceiling' "$TMP/pxq.table"
check "the table has the 1x2 step" grep -qE '^ +1 +2 +[0-9.]+ ' "$TMP/pxq.table"
"$BIN" --headless -m kernel-only -n 2 --queues 2 -D 1 "${SMALL[@]}" -o "$TMP/last.csv" 2>/dev/null &
pid=$!
wait $pid
check "a run with queues leaves no segment and no worker" eval '[ "$(segments_of $pid)" -eq 0 ] && [ "$(children_of $pid)" -eq 0 ]'
