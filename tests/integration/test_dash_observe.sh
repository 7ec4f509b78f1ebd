#!/usr/bin/env bash
# test_dash_observe.sh: the dashboard in a real terminal (a private tmux server) observing a program
# whose parent makes no OpenCL call and whose child does: the row with work is selected, not the
# parent; when the program ends the screen keeps its last frame, says how the program exited and
# that q quits, with the clock stopped and the keys that act on the run refused; o shows the
# output and the file it is in, a line too long for the screen cut with an ellipsis; at 80x24 and
# 160x45. Then workers whose batch is longer than the interval: the latest rate dimmed in place of
# n/a (the attribute read from the escape codes) and the hint that the batch is slow.
# tier: device, about 20 s
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/screen.sh"

DPID= RUN=0
CNT="$FIXTURES/cl_counts" # make fixtures

obs_cleanup() {
	touch "$TMP/go"
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait_for 10 gone "$DPID"
	"${TM[@]}" kill-server >/dev/null 2>&1
	tap_cleanup
}
on_exit obs_cleanup
trap "exit 143" TERM INT

launch() {
	RUN=$((RUN + 1))
	DPID=
	keys "clear; $*; echo END$RUN=\$?" Enter
	wait_for 20 find_dash
}
# The selected row (">" in its first column), as drawn.
selected() { pane | grep -E '^>[* ] *[0-9]+ +[0-9]+ '; }
elapsed() { pane | sed -nE '1s/.*elapsed ([0-9:]+)$/\1/p'; }
# Escape codes of the screen; the running row's rate dimmed: SGR 2 (tmux writes it as a code of
# its own or within a list, other codes may follow) right before the number.
escapes() { "${TM[@]}" capture-pane -e -p -t main; }
rate_dimmed() {
	escapes | grep -E 'running' |
		grep -qE $'running[^0-9]*\e\\[([0-9;]*;)?2(;[0-9;]*)?m(\e\\[[0-9;]*m)* +[0-9]+\\.[0-9]+'
}
keybar() { pane | tail -1; }

check "the C test program is built" test -x "$CNT"
"${TM[@]}" new-session -d -x 80 -y 24 -s main "env PS1='$ ' LC_ALL=C.UTF-8 bash --norc --noprofile"
SHPID=$("${TM[@]}" display -p -t main '#{pane_pid}')

# ---- a program: sh (no OpenCL) runs cl_counts, whose parent forks a child that does the work;
# the child holds after its loop until $TMP/go exists, then sh ends with status 3 ----
LONG=$(printf 'word%.0s ' $(seq 40))
PROG="echo $LONG; CL_COUNTS_HOLD=$TMP/go $CNT 50 4 1; exit 3"
launch "$BIN" -i 0.2 --no-config -- sh -c "'$PROG'"
see "the dashboard starts" 60 find_dash
DASH=$DPID
see "the program's rows: sh without OpenCL calls, cl_counts' child at work" 60 \
	eval '[ "$(rows_in "no CL")" -ge 1 ] && rows_are running 1'
see "the row with work is selected, not the parent" 30 eval 'selected | grep -q running'
see "  its graphs are the child's, with its rate once a batch has completed" 30 eval 'sel=$(selected | awk "{print \$2}"); screen_has "^worker $sel Mitem/s +[0-9]"'

keys o
see "o: the programs' output, with the file it is in" 10 \
	eval 'screen_has "^The programs. output" && screen_has "the last lines of /tmp/gputop-decode-programs-"'
check "  a line longer than the screen ends in an ellipsis at its edge, no word cut without it" \
	eval 'pane | grep -E "^\\[1\\] word" | grep -qE "…$"'
keys Escape

touch "$TMP/go"
see "the program ends: the screen stays, saying how it exited and that q quits" 60 \
	eval 'keybar | grep -qE "^program exited \\(status 3\\); o its output; q quits"'
check "  the dashboard is still running" kill -0 "$DPID"
check "  the last frame's rows stay, the child's exited" eval 'rows_are exited 1 && [ "$(rows_in "[a-z ]+")" -ge 2 ]'
T1=$(elapsed)
sleep 2.2
check "  the clock has stopped ($T1)" test "$(elapsed)" = "$T1"
keys +
see "  + is refused: nothing left to act on" 10 screen_has "nothing left to act on; q quits"
"${TM[@]}" resize-window -t main -x 160 -y 45
see "160x45: the end line names the output's file" 20 \
	eval 'keybar | grep -qE "^program exited \\(status 3\\); o its output \\(in /tmp/gputop-decode-programs-[^ ]+\\.log\\); q quits"'
check "  the rows are still there" rows_are exited 1
keys o
see "  o still shows the output" 10 screen_has "^\\[1\\] word"
keys Escape q
see "q quits with status 0" 30 screen_has "^END$RUN=0\$"
DPID=
check "  no segment of it left" test "$(segments_of "$DASH")" -eq 0

# ---- workers whose batch is longer than the interval: the latest figures dimmed, a hint ----
"${TM[@]}" resize-window -t main -x 80 -y 24
launch "$BIN" -n 1 -s 300000 -l 2 -i 0.05 --no-config
see "slow batches: the dashboard starts" 60 find_dash
DASH=$DPID
see "  a window without a batch shows the row's latest rate, dimmed, not n/a" 60 rate_dimmed
see "  the summary says the batch is slow and what to change (80x24)" 30 \
	screen_has "slow: ~[0-9.]+ s a batch \\(-s smaller\\)"
"${TM[@]}" resize-window -t main -x 160 -y 45
see "  at 160x45 in full, naming the interval" 30 \
	screen_has "slow: a batch takes ~[0-9.]+ s( on this CPU device)?, over the 0.05 s interval \\(-s smaller, or \\]\\)"
keys q
see "  q quits with status 0" 30 screen_has "^END$RUN=0\$"
DPID=
check "  no segment of it left" test "$(segments_of "$DASH")" -eq 0
