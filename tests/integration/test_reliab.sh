#!/usr/bin/env bash
# test_reliab.sh: what a hostile local user or a stalled reader could do to a run, one section
# per class of doc/RELIABILITY.md ("Other users, blocked outputs, helper children"): outputs
# nobody reads, a terminal stopped with Ctrl-S, signals while helper children run, files and
# names planted by another uid, deaths hidden in sweeps, and inputs of every size. Every wait is
# bounded; nothing asserts on speed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/screen.sh"
W=(-s 20000 -l 2) # a small workload: the machine may be a loaded 2-core box
DPID=

rel_cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait_for 10 gone "$DPID"
	"${TM[@]}" kill-server >/dev/null 2>&1
	stop_started
	tap_cleanup
}
trap rel_cleanup EXIT

# batches PROMFILE: the sum of the workers' batch counters in the Prometheus file.
batches() { awk '/^gputop_decode_batches_total/ { s += $2 } END { print s + 0 }' "$1" 2>/dev/null; }
# advances PROMFILE: the batch count grows over the next second and more (bounded).
advances() {
	local b0
	b0=$(batches "$1")
	wait_for 20 eval '[ "$(batches "'"$1"'")" -gt "'"$b0"'" ]'
}
# ended_within SECONDS PID: the process is gone within the bound.
ended_within() { wait_for "$1" gone "$2"; }

# ---- 3. no output stops observation or the answer to a signal ----
# A log into a pipe nobody reads: observation goes on (the Prometheus file keeps counting),
# SIGTERM is answered, and what could not be written is counted and said.
mkfifo "$TMP/stall.fifo"
exec 7<>"$TMP/stall.fifo" # held open, never read
"$BIN" --headless "${W[@]}" -i 0.05 -n 2 -f jsonl --prom-file "$TMP/stall.prom" >"$TMP/stall.fifo" \
	2>"$TMP/stall.err" &
SUP=$!
SUPS+=("$SUP")
wait_for 30 test -s "$TMP/stall.prom"
sleep 2 # 64 KiB of rows: the pipe is full long before
check "a log into a pipe nobody reads: the rings are still read" advances "$TMP/stall.prom"
kill -TERM "$SUP"
check "... SIGTERM ends the run within 20 s" ended_within 20 "$SUP"
wait "$SUP"
ok $([ $? -eq 1 ]; echo $?) "... exit status 1: the log is incomplete"
check "... the lines not written are counted" grep -qE "the log: [0-9]+ lines not written" "$TMP/stall.err"
check "... no worker and no segment left" test "$(segments_of "$SUP")" -eq 0 -a "$(children_of "$SUP")" -eq 0
exec 7<&-

# The dashboard in a terminal stopped with Ctrl-S: the same, and the terminal is restored.
"${TM[@]}" new-session -d -x 100 -y 30 -s main "env PS1='$ ' bash --norc --noprofile"
SHPID=$("${TM[@]}" display -p -t main '#{pane_pid}')
keys "clear; $BIN ${W[*]} -i 0.1 --prom-file $TMP/dash.prom; echo END=\$? FLOW=\$(stty -a | grep -ow -- '-\?ixon')" Enter
wait_for 20 find_dash
see "the dashboard draws" 30 screen_has "elapsed"
keys C-s
sleep 1
check "a terminal stopped with Ctrl-S: the rings are still read" advances "$TMP/dash.prom"
kill -TERM "$DPID"
check "... SIGTERM ends the dashboard within 20 s" ended_within 20 "$DPID"
see "... with status 0, flow control (ixon) given back" 20 screen_has "^END=0 FLOW=ixon\$"
DPID=
