#!/usr/bin/env bash
# test_vendor_rows.sh: every process on the device, as its driver lists it, driven end to end by
# the fake libnvidia-ml (tests/fake/fake_nvml.c, GPUTOP_DECODE_NVML) matched to the PoCL device
# by GPUTOP_DECODE_DEVICE_PCI. The fake's script, a file rewritten while the run goes on, lists
# the run's own workers and a sleep this script started: the log has an outside row for the
# sleep (its pid, command, memory and the driver's SM share) and nothing the tool measures in
# it, the workers' rows carry their memory, and the aggregate counts the workers alone; the
# dashboard shows the MEM column and the outside row, dimmed. Without the library the log has
# no outside row and no driver's figure, and the dashboard no MEM column.
# tier: device, about 15 s
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/screen.sh"

ARGS=(-s 20000 -l 2 -i 0.25) # small: PoCL on a CPU is the device here
FAKE="$ROOT/${BUILD:-build/plain}/fake/nvml-full.so"
BUS=0000:17:00.0
SCRIPT="$TMP/nvml.script"
OUT= DPID=

vendor_cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait_for 10 gone "$DPID"
	[ -n "$OUT" ] && kill "$OUT" 2>/dev/null && wait "$OUT" 2>/dev/null
	stop_started
	"${TM[@]}" kill-server >/dev/null 2>&1
	tap_cleanup
}
on_exit vendor_cleanup

# script PID:MEM,...: the fake's answer from now on: the device 90% busy by its count, 2 MiB of
# 1 GiB in use, the processes listed with their memory, each sampled at 40% SM. Written whole
# and renamed, so the fake never reads half of it.
script() {
	local sm
	sm=$(tr ',' '\n' <<<"$1" | sed 's/:.*/:40/' | paste -sd,)
	printf 'pci=%s util=90 mem=2097152/1073741824 gpm=UNSUPPORTED procs=%s putil=%s\n' \
		"$BUS" "$1" "$sm" >"$SCRIPT.new"
	mv "$SCRIPT.new" "$SCRIPT"
}
with_fake() {
	GPUTOP_DECODE_NVML="$FAKE" GPUTOP_FAKE_NVML_FILE="$SCRIPT" GPUTOP_DECODE_DEVICE_PCI="$BUS" "$@"
}
# The pids of the workers of the log's rows (JSONL), in order.
worker_pids() { grep '"kind":"worker"' "$1" | sed -n 's/.*"pid":\([0-9]*\).*/\1/p' | sort -un; }
has_pids() { [ "$(worker_pids "$1" | wc -l)" -ge "$2" ]; }
# A worker row of pid $2 in log $1 with the memory the script gave it.
row_has_mem() { grep '"kind":"worker"' "$1" | grep "\"pid\":$2," | grep -q "\"mem_used_bytes\":$3,"; }

device_from_here
(exec sleep 300) &
OUT=$!

# ---- the log ----
script "$OUT:524288000"
with_fake start fake "${ARGS[@]}" -n 2 --format jsonl
LOG="$TMP/fake.log"
wait_for 60 has_pids "$LOG" 2
mapfile -t W < <(worker_pids "$LOG")
script "${W[0]}:3145728,${W[1]}:1048576,$OUT:524288000"
stop_when 60 "$SUP" eval 'row_has_mem "$LOG" "${W[0]}" 3145728 && row_has_mem "$LOG" "${W[1]}" 1048576'
check "the run with the fake library ends with status 0 (status $RC)" test "$RC" -eq 0
check "  an outside row: the sleep's pid, its command, its memory, the driver's SM share" \
	grep -qE "\"kind\":\"outside\",\"pid\":$OUT,.*\"device\":\"0:0\",\"command\":\"sleep\",\"mem_used_bytes\":524288000,\"driver_sm\":0.4000}" "$LOG"
check "  an outside row carries nothing the tool measures (no rate, busy, batches, id, state)" \
	! eval 'grep "\"kind\":\"outside\"" "$LOG" | grep -qE "\"(mbit_s|device_busy|kernel_busy|batches|id|state|procs)\":"'
check "  the workers' rows carry their memory and the driver's SM share" \
	eval 'row_has_mem "$LOG" "${W[0]}" 3145728 && grep "\"pid\":${W[1]}," "$LOG" | grep -q "\"mem_used_bytes\":1048576,\"driver_sm\":0.4000"'
check "  no outside row for the run's own processes" \
	! grep -qE "\"kind\":\"outside\",\"pid\":(${W[0]}|${W[1]}|$SUP)," "$LOG"
check "  every aggregate counts the 2 workers alone, the device's memory and the driver's share beside" \
	python3 - "$LOG" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
agg = [r for r in rows if r["kind"] == "aggregate"]
assert agg and all(r["procs"] <= 2 for r in agg), "procs"
assert all(r["driver_util"] == 0.9 and r["mem_used_bytes"] == 2097152 for r in agg), "driver"
# the batches are the workers' alone: the outside row adds none
by_t = {}
for r in rows:
    if r["kind"] == "worker":
        by_t[r["t_s"]] = by_t.get(r["t_s"], 0) + r["batches"]
assert all(by_t.get(r["t_s"], 0) == r["batches"] for r in agg), "batches"
busy = [r["device_busy"] for r in agg if "device_busy" in r]
assert busy and all(0 <= b <= 1 for b in busy), "busy"
PY
check "  no segment left" test "$(segments_of "$SUP")" -eq 0

# ---- the log without the library: as before ----
GPUTOP_DECODE_NVML="$TMP/missing.so" GPUTOP_DECODE_DEVICE_PCI="$BUS" start plain "${ARGS[@]}" -n 1 --format jsonl
stop_when 60 "$SUP" windows_with_batches 2 "$TMP/plain.log"
check "without the library: status 0 (status $RC)" test "$RC" -eq 0
check "  no outside row, no memory, no driver's figure" \
	! grep -qE '"kind":"outside"|"(mem_used_bytes|driver_sm|driver_util)":' "$TMP/plain.log"

# ---- the dashboard ----
"${TM[@]}" new-session -d -x 160 -y 50 -s main "env PS1='$ ' bash --norc --noprofile"
SHPID=$("${TM[@]}" display -p -t main '#{pane_pid}')
script "$OUT:524288000"
keys "GPUTOP_DECODE_NVML='$FAKE' GPUTOP_FAKE_NVML_FILE='$SCRIPT' GPUTOP_DECODE_DEVICE_PCI=$BUS $BIN ${ARGS[*]} -n 1" Enter
wait_for 30 find_dash
# The table's head line (the sort column's head may carry an arrow).
heads() { pane | grep -E '^ +id[^ ]* +pid ' | head -1; }
# The pid of worker 1, as its row shows it running.
kid() { KID=$(pane | sed -nE 's/^[> ][* ] +1 +([0-9]+) +running .*/\1/p' | head -1); [ -n "$KID" ]; }
wait_for 30 kid
script "$KID:3145728,$OUT:524288000"
see "the dashboard: a MEM column" 30 eval 'heads | grep -qE " MEM( |$)"'
see "  the sleep as an outside row: its pid, outside, its memory, its command and SM share" 30 \
	screen_has "^ +$OUT +outside .* 500M sleep 0:0 SM 40%"
see "  the worker's row shows its memory" 30 screen_has "^[> ][* ] +1 +$KID +running .* 3\.0M "
check "  the outside row is not selectable: the worker stays selected" screen_has "^> +1 +$KID "
keys q
wait_for 20 gone "$DPID"
DPID=
keys "clear; GPUTOP_DECODE_NVML='$TMP/missing.so' $BIN ${ARGS[*]} -n 1" Enter
wait_for 30 find_dash
see "without the library: the table as before, no MEM column" 30 \
	eval 'heads | grep -q " pid " && ! heads | grep -q MEM'
check "  no outside row" ! screen_has " outside "
keys q
wait_for 20 gone "$DPID"
DPID=
