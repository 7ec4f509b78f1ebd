#!/usr/bin/env bash
# test_devices.sh: --device with real PoCL devices: one device by P:D, all, a name substring;
# bad devices and lists refused with status 2 before anything starts; and with PoCL made to
# expose two devices (POCL_DEVICES), workers spread round robin, device rows per window whose
# figures are their own workers', a sweep's per-device rows (repeated too), Prometheus
# samples labelled by device, trace processes named with their device, observed programs on the
# device they picked, and the dashboard's device lines in a real terminal (tmux).
# tier: device, about 40 s
. "$(dirname "$0")/lib.sh"
CHECK="python3 $ROOT/tests/integration/check_log.py"
ARGS=(--headless -s 5000 -l 2 -i 0.5 --profile full -f jsonl)

# Every worker has decoded something in the last window of log $1 with $2 workers.
decoding() {
	python3 - "$1" "$2" <<'PY' 2>/dev/null
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]  # after the run header
last = [r for r in rows if r["t_s"] == rows[-1]["t_s"] and r["kind"] == "worker"]
windows = len([r for r in rows if r["kind"] == "aggregate"])
sys.exit(0 if windows >= 2 and len(last) == int(sys.argv[2]) and all(r.get("mbit_s", 0) > 0 for r in last) else 1)
PY
}
PIDS=() # every supervisor started here
# run LOG WORKERS ARGS...: a run that ends (SIGINT) once every worker decodes in one window:
# nothing rests on how fast a loaded machine is. Its status is in $rc.
run() {
	local log=$1 n=$2
	shift 2
	rm -f "$log"
	"$BIN" "${ARGS[@]}" -n "$n" "$@" -o "$log" 2>"$log.err" &
	local pid=$!
	PIDS+=("$pid")
	wait_for 120 decoding "$log" "$n"
	kill -INT $pid
	wait $pid
	rc=$?
}

# One device, three ways of naming it: the same device, the log as with one device.
name=$("$BIN" --list-devices | head -1 | sed -E 's/^[0-9]+:[0-9]+ +[A-Z]+ +//; s/ +\(.*//')
word=${name%%-*} # "pthread" of "pthread-skylake-...": a substring of the name
for dev in 0:0 all "$word"; do
	run "$TMP/one.jsonl" 2 --device "$dev"
	ok $rc "--device $dev: exits 0"
	$CHECK "$TMP/one.jsonl" jsonl 2 >"$TMP/check" 2>&1
	ok $? "--device $dev: the log checks out"
	diag "$TMP/check"
	check "--device $dev: workers on 0:0, the aggregate \"all\", no device rows" python3 -c '
import json, sys
head, *rows = [json.loads(l) for l in open(sys.argv[1])]
assert head["run"]["options"]["device"] == "0:0" and len(head["run"]["devices"]) == 1, head
assert all(r["device"] == ("0:0" if r["kind"] == "worker" else "all") for r in rows), rows[:3]
assert not [r for r in rows if r["kind"] == "device"]' "$TMP/one.jsonl"
done

# Refused before anything starts: status 2, one line, no segment, no file.
bad() { # bad DEVICE PATTERN
	"$BIN" --headless -n 1 -D 1 --device "$1" -o "$TMP/bad.log" >"$TMP/bad.out" 2>"$TMP/bad.err" &
	local pid=$!
	wait $pid
	local rc=$?
	PIDS+=("$pid")
	ok $((rc != 2)) "--device '$1': status 2 (got $rc)"
	check "--device '$1': one line naming it" test "$(wc -l <"$TMP/bad.err")" -eq 1 -a \
		"$(grep -c -- "$2" "$TMP/bad.err")" -eq 1
	check "--device '$1': no log file" test ! -e "$TMP/bad.log"
}
bad nosuchdevice "no device's name contains 'nosuchdevice' (see --list-devices)"
bad pthred "no device's name contains 'pthred' (did you mean pthread?)"
bad 0:7 "no device 0:7"
bad 0:0,0:0 "0:0 is listed twice"
bad 0:0, "PLATFORM:DEVICE"
bad 0:0,3:0 "no device 3:0"

# Two devices: PoCL's pthread and basic drivers, 0:0 and 0:1, with different names.
export POCL_DEVICES="pthread basic"
"$BIN" --list-devices >"$TMP/two"
check "POCL_DEVICES exposes two devices" test "$(grep -cE '^0:[01] ' "$TMP/two")" -eq 2
run "$TMP/two.jsonl" 3 --device 0:0,0:1 --trace "$TMP/two.trace"
ok $rc "--device 0:0,0:1 with 3 workers: exits 0"
$CHECK "$TMP/two.jsonl" jsonl 3 >"$TMP/check" 2>&1
ok $? "two devices: each device row is the sum of its workers, its busy within its workers' bounds"
diag "$TMP/check"
python3 - "$TMP/two.jsonl" >"$TMP/check" 2>&1 <<'PY'
import json, sys
head, *rows = [json.loads(l) for l in open(sys.argv[1])]
assert head["run"]["options"]["device"] == "0:0,0:1", head
assert [d["device"] for d in head["run"]["devices"]] == ["0:0", "0:1"], head
on = {r["id"]: r["device"] for r in rows if r["kind"] == "worker"}
assert on == {1: "0:0", 2: "0:1", 3: "0:0"}, on
last = rows[-1]["t_s"]
devs = [r for r in rows if r["kind"] == "device" and r["t_s"] == last]
assert [(d["device"], d["procs"]) for d in devs] == [("0:0", 2), ("0:1", 1)], devs
agg = [r for r in rows if r["kind"] == "aggregate" and r["t_s"] == last][0]
assert abs(agg["device_busy"] - sum(d["device_busy"] for d in devs) / 2) < 2e-4, (agg, devs)
assert all(0 <= d["device_busy"] <= 1 and d["mbit_s"] > 0 for d in devs), devs
PY
ok $? "round robin: workers 1 and 3 on 0:0, 2 on 0:1; the overall busy is the devices' mean"
diag "$TMP/check"
check "the trace names each worker's device in its process: 1 and 3 on 0:0, 2 on 0:1" python3 -c '
import json, re, sys
t = json.load(open(sys.argv[1]))
names = {e["pid"]: re.sub(r"pid [0-9]+", "pid P", e["args"]["name"]) for e in t
         if e.get("name") == "process_name" and e["pid"] > 0 and e["args"]["name"].startswith("worker")}
assert names == {1: "worker 1 (pid P, device 0:0)", 2: "worker 2 (pid P, device 0:1)",
                 3: "worker 3 (pid P, device 0:0)"}, names' "$TMP/two.trace"

# A substring matching one of them, and all.
run "$TMP/basic.jsonl" 2 --device BASIC
ok $rc "--device BASIC (any case) exits 0"
check "--device BASIC: only the basic device, no device rows" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
assert {r["device"] for r in rows if r["kind"] == "worker"} == {"0:0"}, rows[0]
assert not [r for r in rows if r["kind"] == "device"]' "$TMP/basic.jsonl"

# A sweep over both: one row per step and one per device, the devices sharing the workers.
"$BIN" --headless --device all --sweep 2 -D 1 -s 5000 -l 2 -i 0.5 -f jsonl -o "$TMP/sweep.jsonl" \
	>"$TMP/sweep.txt" 2>"$TMP/sweep.err" &
PIDS+=("$!")
wait $!
rc=$?
ok $rc "a sweep with --device all exits 0"
check "the sweep logs a row for the step and one per device, one worker each" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
assert [(r["device"], r["procs"]) for r in rows] == [("all", 2), ("0:0", 1), ("0:1", 1)], rows
assert abs(rows[0]["mbit_s"] - rows[1]["mbit_s"] - rows[2]["mbit_s"]) < 1e-3, rows' "$TMP/sweep.jsonl"
check "the sweep table names the devices" grep -q ' 0:1 ' "$TMP/sweep.txt"

# Repeated, in CSV: each run's row and each summary followed by the devices' shares.
"$BIN" --headless --device all --sweep 1,2 --repeat 2 -D 1 -s 5000 -l 2 -i 0.5 -o "$TMP/rep.csv" \
	>"$TMP/rep.txt" 2>"$TMP/rep.err" &
PIDS+=("$!")
wait $!
ok $? "a repeated sweep on two devices exits 0"
$CHECK "$TMP/rep.csv" csv --sweep 2 2 --option 'device="0:0,0:1"' >"$TMP/check" 2>&1
ok $? "its log: 4 runs and 2 summaries, each with two device rows that add up to it"
diag "$TMP/check"
check "its table: a line per step and per device (6)" test "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9.]+ ' "$TMP/rep.txt")" -eq 6

# Prometheus: every worker labelled with its own device, and each device's figures its own.
"$BIN" "${ARGS[@]}" -n 2 --device all --prom-file "$TMP/m.prom" -o "$TMP/prom.jsonl" 2>"$TMP/prom.err" &
pid=$!
PIDS+=("$pid")
wait_for 120 decoding "$TMP/prom.jsonl" 2
both() { grep -q "gputop_decode_device_busy_seconds_total{.*index=\"0:1\"" "$1" && grep -q 'worker="2",.*index="0:1"' "$1"; }
wait_for 30 both "$TMP/m.prom"
ok $? "--prom-file: device busy for 0:1, worker 2 labelled 0:1"
check "--prom-file: two device_info samples" test "$(grep -c '^gputop_decode_device_info{' "$TMP/m.prom")" -eq 2
kill -INT $pid
wait $pid

# An observed program counts on the device it picked: two processes on 0:1 (its second
# device), none on 0:0; with only 0:0 in the run, the tool says where they run instead.
CNT="$FIXTURES/cl_counts" # make fixtures
CL_COUNTS_DEVICE=1 "$BIN" --headless --device 0:0,0:1 -n 2 -i 0.5 --profile full -f jsonl \
	-o "$TMP/obs.jsonl" -- "$CNT" 20 10 >/dev/null 2>"$TMP/obs.err"
ok $? "-- COMMAND on two devices: exits 0"
python3 - "$TMP/obs.jsonl" >"$TMP/check" 2>&1 <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
on = {r["id"]: r["device"] for r in rows if r["kind"] == "worker"}
assert on == {1: "0:1", 2: "0:1"}, on
done = {}  # batches since the start: the last row of each device says them all
for r in rows:
    if r["kind"] == "device":
        done[r["device"]] = r["batches"]
assert done["0:0"] == 0 and done["0:1"] == 40, done
PY
ok $? "  both processes on 0:1, the device they picked: its 40 batches there, none on 0:0"
diag "$TMP/check"
CL_COUNTS_DEVICE=1 "$BIN" --headless --device 0:0 -n 1 -i 0.5 -o /dev/null -- "$CNT" 5 10 >/dev/null 2>"$TMP/obs.err"
check "  a program on a device the run does not list: the tool says so" \
	grep -q "process 1 (pid [0-9]*) uses device 0:1, which is not one of the run's devices (-d): it is counted on 0:0" "$TMP/obs.err"

# The dashboard in a real terminal: one line per device heading its workers, + on the device
# with the fewest, q ends it all.
. "$(dirname "$0")/screen.sh"
on_exit '"${TM[@]}" kill-server >/dev/null 2>&1; tap_cleanup'
"${TM[@]}" new-session -d -x 120 -y 30 -s main "env PS1='$ ' LC_ALL=C.UTF-8 POCL_DEVICES='$POCL_DEVICES' bash --norc --noprofile"
SHPID=$("${TM[@]}" display -p -t main '#{pane_pid}')
keys "clear; $BIN -n 3 --device all -s 5000 -l 2 -i 0.5 -f jsonl -o $TMP/dash.jsonl; echo END=\$?" Enter
see "the dashboard starts" 60 find_dash
PIDS+=("$DPID")
see "the header lists both devices" 90 screen_has "2 devices: 0:0 0:1"
see "a line per device: 0:0 with 2 workers, 0:1 with 1" 90 eval \
	'screen_has "^ 0:0 .* workers 2" && screen_has "^ 0:1 .* workers 1"'
check "the device lines head their groups (0:0, two rows, 0:1, one row)" eval \
	'[ "$(pane | grep -E "^ 0:[01] |^[>* ] *[0-9]+ +[0-9]+ " | cut -c1-5 | tr -d " " | tr "\n" " ")" = "0:0 >1 3 0:1 2 " ]'
keys +
# The message lasts 4 s and the device line counts the worker once it runs: each seen on its own.
see "+ starts worker 4 on 0:1, the device with the fewest" 90 screen_has "started worker 4 \(pid [0-9]+\) on 0:1"
see "  and 0:1's line counts it" 90 screen_has "^ 0:1 .* workers 2"
keys q
see "q ends the dashboard with status 0" 60 screen_has "^END=0$"
check "the dashboard's log has device rows for both" eval \
	'grep -q "\"kind\":\"device\".*\"device\":\"0:1\"" "$TMP/dash.jsonl" && grep -q "\"kind\":\"device\".*\"device\":\"0:0\"" "$TMP/dash.jsonl"'
left=0
for p in "${PIDS[@]}"; do
	left=$((left + $(segments_of "$p") + $(children_of "$p")))
done
check "no segment and no worker is left by any run, refused ones included" test "$left" -eq 0
