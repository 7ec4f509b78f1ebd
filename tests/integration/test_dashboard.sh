#!/usr/bin/env bash
# test_dashboard.sh: the interactive dashboard in a real terminal (a private tmux server): the
# header and rows, every action key, the help, resizing, the graphs' axes, ended rows leaving the table (e keeps
# them), and that quitting, SIGTERM, SIGHUP and --duration restore the terminal and leave no
# worker process and no segment behind.
# tier: fast, about 45 s
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/screen.sh"

ARGS="-s 20000 -l 2 -i 0.2" # small: PoCL on a CPU is the device here
DPID= RUN=0 KIDS=

dash_cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait_for 10 gone "$DPID"
	"${TM[@]}" kill-server >/dev/null 2>&1
	tap_cleanup
}
on_exit dash_cleanup

# The worker pids of the dashboard now, kept to check later that they are gone.
remember_kids() { KIDS=$(ps -o pid= --ppid "$DPID" 2>/dev/null | tr '\n' ' '); }
kids_gone() {
	local p
	for p in $KIDS; do kill -0 "$p" 2>/dev/null && return 1; done
	return 0
}

# launch COMMAND: runs it in the pane's shell; after it ends the shell prints END<run>=<status>
# and TTY=<the terminal's icanon and echo flags> (restored: "icanon echo").
launch() {
	RUN=$((RUN + 1))
	DPID=
	local tty="stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '"
	"${TM[@]}" send-keys -t main "clear; $*; echo END$RUN=\$?; echo TTY=\$($tty)" Enter
	wait_for 20 find_dash
}
ended_ok() { screen_has "^END$RUN=0\$" && screen_has "^TTY=icanon echo"; }
# Colour escapes on the screen (tmux writes its own default-colour resets, 39 and 49).
coloured() { "${TM[@]}" capture-pane -e -p -t main | grep -qE $'\e\\[([0-9;]*;)?[34][0-7](;[0-9;]*)?m'; }
normal_screen() { [ "$("${TM[@]}" display -p -t main '#{alternate_on}')" = 0 ]; }

# Checks every exit path shares: the process ended with status 0, workers and segments gone,
# the terminal back in its normal mode.
check_clean_exit() { # check_clean_exit HOW
	local pid=$DPID
	see "$1: the dashboard exits with status 0" 30 ended_ok
	see "$1: its workers are gone within 5 s" 5 kids_gone
	see "$1: no segment left in /dev/shm" 5 test "$(segments_of "$pid")" -eq 0
	check "$1: the alternate screen is left" normal_screen
	DPID=
}

# ---- without a terminal ----
"$BIN" -s 1000 </dev/null >"$TMP/nt.out" 2>"$TMP/nt.err"
ok $([ $? -eq 2 ]; echo $?) "without a terminal: exit status 2"
check "without a terminal: the message suggests --headless" grep -q -- --headless "$TMP/nt.err"
device_from_here

# ---- a terminal of 100x30 ----
"${TM[@]}" new-session -d -x 100 -y 30 -s main "env PS1='$ ' bash --norc --noprofile"
SHPID=$("${TM[@]}" display -p -t main '#{pane_pid}')
check "dashboard starts in the terminal" launch "$BIN" $ARGS -f jsonl -o "$TMP/dash.jsonl"
see "header: tool, device and settings" 20 screen_has "^gputop-decode .*elapsed"
check "header: size, dtype, launches, mode with its generator, interval, timebase" \
	screen_has "size 20000  dtype f(32|64)  launches 2  mode seed/box-muller  interval 0.2 s  timebase "
see "aggregate: Mbit/s, busy, idle and the rate at 100% busy with the room left" 10 \
	eval 'screen_has "^Mbit/s " && screen_has "^busy .*idle" && screen_has "^at 100% busy (~[0-9.]+ Mbit/s|n/a) \\(room "'
see "one worker row, running" 60 rows_are running 1
check "column heads carry units" screen_has "Mbit/s +batches +kbusy% +kgap_us +bgap_us +lost"
see "the diagnosis in words under the summary: busy, then the causes of idle time or the ceiling" 10 \
	screen_has "^device [0-9]+% busy; (at the ceiling|idle: [a-z ]+ [0-9]+%)"
# --profile sampled (the default): device figures partly from estimated device times say so.
see "sampled: busy and kbusy% marked ~ (partly estimated device times)" 20 \
	eval 'screen_has "^busy +[0-9.]+~%" && screen_has "^[> ] +1 +[0-9]+ +running +[0-9.]+ +[0-9]+ +[0-9.]+~ "'
check "colours on a colour terminal" coloured

"${TM[@]}" send-keys -t main + +
see "+ twice: three worker processes" 60 kids_are 3
# All three running before the next key: a stop that lands while a worker is still building
# its kernel is not what this step is about.
see "+ twice: three rows, running" 60 rows_are running 3

"${TM[@]}" send-keys -t main -
see "-: two worker processes" 40 kids_are 2
see "-: two live rows, the newest exited" 40 \
	eval 'rows_are "starting|running" 2 && screen_has "^ +3 +[0-9]+ +exited"'

"${TM[@]}" send-keys -t main Down
see "Down selects the second row" 5 screen_has "^> +2 +[0-9]+ "
"${TM[@]}" send-keys -t main K y
see "K y: the selected row turns to exited" 20 screen_has "^> +2 +[0-9]+ +exited .*killed by SIGKILL"
check "K: the dashboard keeps running" kill -0 "$DPID"
see "K: one worker process left" 10 kids_are 1
"${TM[@]}" send-keys -t main e
see "e: ended rows stay in the table" 5 screen_has "ended rows stay in the table"
KEPT=$SECONDS

"${TM[@]}" send-keys -t main h
see "h shows the help" 5 eval 'screen_has "keys$" && screen_has "^ +q F10 +quit"'
check "the help lists the keys (test_keys.sh checks all of them)" eval 'pane | grep -cE "^  (\+ =|-|Up Down|x|K|p|c|r|h \? F1|q F10) " | grep -qx 10'
"${TM[@]}" send-keys -t main Space
see "any key closes the help" 5 eval 'screen_has "kbusy%" && ! screen_has "keys$"'

"${TM[@]}" send-keys -t main c
see "c calibrates, pausing the workers" 10 screen_has "calibrating"
see "  and the key bar says how it ended" 60 screen_has "ceiling [0-9.]+ Mbit/s \\([0-9]+ queues?\\)"
see "  and the summary then shows the ceiling, the share reached or that it is stale" 10 \
	screen_has "ceiling [0-9.]+ Mbit/s(, at| stale \\(rate above it\\): c recalibrates)"

"${TM[@]}" send-keys -t main d
see "d: the diagnosis screen: the device's time by cause, each with its share" 10 \
	eval 'screen_has "^Where the device.s idle time goes" && screen_has "^  kernels \(busy\) +[0-9.]+%" &&
		screen_has "^  idle: host work +[0-9.]+%" && screen_has "^  idle: launch gaps +[0-9.]+%"'
check "  the predictions: more processes and one pipelined process" \
	eval 'screen_has "^  one more process +about [0-9.]+ Mbit/s" && screen_has "^  one pipelined process +about [0-9.]+ Mbit/s"'
check "  the calibration's figure at 4x the size, where it measured one (a batch at the ceiling of 10 ms or less)" \
	eval 'screen_has "^  larger batches +4x the size: [0-9.]+ Mbit/s, [-+][0-9]+% \((launch costs bound this size|the device.s bound)\)$" ||
		! grep -q ceiling_4x "$TMP/dash.jsonl"'
see "  each worker's own split and what others hid" 10 screen_has "^ +1 +[0-9]+ +[0-9.]+% +[0-9.]+% .* [0-9.]+%$"
see "  the timeline strip: the device's union and one line per worker, with kernels drawn" 10 \
	eval 'screen_has "^Timeline: the last [0-9.]+ ms of kernels" && screen_has "^  device +[^ ]" && screen_has "^ +1 +[^ ]"'
"${TM[@]}" send-keys -t main Escape
see "Esc closes the diagnosis screen" 5 eval 'screen_has "kbusy%" && ! screen_has "^Where the device"'

"${TM[@]}" resize-window -t main -x 60 -y 20
see "60x20: the too-small screen" 10 screen_has "terminal too small: need 80x24"
"${TM[@]}" resize-window -t main -x 80 -y 24
see "80x24: header with the timebase, table and key bar fit" 10 \
	eval 'screen_has "timebase " && screen_has "kbusy% .*breakdown" && screen_has "q quit\$"'
"${TM[@]}" resize-window -t main -x 130 -y 40
see "130x40: the breakdown in microseconds too, the most important first" 10 \
	screen_has "lost +qwait_us +gen_us +h2d_us +kern_us +breakdown g w q k r o"
# The breakdown comes from profiled batches only: in a worker row only kbusy% may carry a ~.
see "130x40, sampled: the breakdown's times carry no ~" 20 \
	eval 'screen_has "^[> ] +[0-9]+ +[0-9]+ +running .*[0-9] +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ " &&
		! screen_has "^[> ] +[0-9]+ +[0-9]+ +running .*~.*~"'
# The graphs' axes: values at the top, middle and foot (a busy graph 100% to 0%), and from six
# rows a time axis that ends at now, ticks at a round step back from it (-30s, -1m ...). The
# axis lines are the terminal's line characters: only the labels are matched.
see "130x40: value axes (100% atop the busy graphs, 0% at their foot) and time axes ending now" 10 \
	eval 'screen_has "100%[^ 0-9~]" && screen_has " 0%[^ 0-9~]" && screen_has " 0[^ 0-9.%~]" &&
		screen_has "[^ ]-[0-9]+[sm][^ ]+-[0-9]+[sm][^ ]+now\$"'
"${TM[@]}" resize-window -t main -x 180 -y 40
see "180x40: and the overlaps" 10 screen_has "oth_us +ovl_us +bovl_us +breakdown"
# gen_thr: the pipelined workers' generation threads; in seed mode it does not apply.
check "180x40, seed mode: gen_thr shown, n/a in a running row" \
	eval 'screen_has "qwait_us +gen_thr +gen_us" && screen_has "^[> ] +1 +[0-9]+ +running( +[0-9.~]+| +n/a){7} +n/a +[0-9]"'
"${TM[@]}" resize-window -t main -x 100 -y 30
see "back to 100x30: the table again" 10 eval 'screen_has "kbusy%" && ! screen_has "too small"'

# Ended rows leave the table 10 s after they end; e keeps them.
[ $((SECONDS - KEPT)) -lt 11 ] && sleep $((11 - (SECONDS - KEPT)))
check "e: 11 s on, the killed row is still listed" screen_has "^[> ] +2 +[0-9]+ +exited"
"${TM[@]}" send-keys -t main e
see "e again: the ended rows leave the table, the running one stays" 10 \
	eval '! screen_has "^[> ] +[23] +[0-9]+ +exited" && rows_are running 1'
check "  the selection moves to the row left" screen_has "^> +1 +[0-9]+ +running"

"${TM[@]}" send-keys -t main p
see "p pauses" 10 screen_has "PAUSED"
"${TM[@]}" send-keys -t main p r
see "p resumes, r resets" 10 eval '! screen_has "PAUSED" && screen_has "statistics and history reset"'

remember_kids
"${TM[@]}" send-keys -t main q
check_clean_exit "q"
python3 - "$TMP/dash.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
kinds = {r["kind"] for r in rows}
assert kinds == {"run", "worker", "aggregate", "event"} and rows[0]["kind"] == "run", kinds
assert all("unix_s" in r and r["unix_s"] > 1.6e9 for r in rows)
ev = [(r["state"], r.get("id")) for r in rows if r["kind"] == "event"]
want = [("add", 2), ("add", 3), ("stop", 3), ("kill", 2), ("calibrate", None), ("pause", None),
        ("resume", None), ("reset", None)]
assert ev == want, ev
t = [r["t_s"] for r in rows if r["kind"] == "event"]
assert t == sorted(t), "events out of order"
# A window is written once it has closed: its frame may follow events of the moments after it.
PY
ok $? "-o with the dashboard: its frames and an event row for every action (add, stop, kill, calibrate, pause, resume, reset), in their order, each with unix_s"

# ---- signals: SIGTERM with --profile full; SIGHUP with NO_COLOR ----
for how in TERM HUP; do
	env="" prof=""
	[ $how = HUP ] && env="NO_COLOR=1"
	[ $how = TERM ] && prof="--profile full"
	launch $env "$BIN" $ARGS -n 2 $prof
	see "SIG$how run: two workers" 60 eval 'kids_are 2 && rows_are running 2'
	[ $how = HUP ] && check "NO_COLOR: no colour, plain attributes" eval '! coloured'
	[ $how = TERM ] && see "--profile full: busy and kbusy% measured, no ~" 10 \
		eval 'screen_has "^busy +[0-9.]+ %" && screen_has "running +[0-9.]+ +[0-9]+ +[0-9.]+ " &&
			! screen_has "^busy +[0-9.]+~" && ! screen_has "running +[0-9.]+ +[0-9]+ +[0-9.]+~"'
	remember_kids
	kill -$how "$DPID"
	check_clean_exit "SIG$how"
done

# ---- TERM=vt100 (no colour, no alternate screen) and --duration ----
launch TERM=vt100 "$BIN" $ARGS -D 6
see "vt100: header and a running row" 60 eval 'screen_has "^gputop-decode " && rows_are running 1'
check "vt100: no colour" eval '! coloured'
remember_kids
check_clean_exit "vt100 --duration"

# ---- Ctrl-\ (SIGQUIT) ends the dashboard like SIGTERM ----
launch "$BIN" $ARGS -n 2
see "Ctrl-\\ run: two workers" 60 eval 'kids_are 2 && rows_are running 2'
remember_kids
"${TM[@]}" send-keys -t main 'C-\'
check_clean_exit "Ctrl-\\ (SIGQUIT)"

# ---- terminals that cannot host the dashboard: refused before anything starts ----
printf kept >"$TMP/keep.json"
for t in "dumb new.json" "nonesuch keep.json"; do
	term=${t% *} file=${t#* }
	RUN=$((RUN + 1))
	"${TM[@]}" send-keys -t main "clear; TERM=$term $BIN $ARGS --trace $TMP/$file 2>$TMP/term.err; echo END$RUN=\$?" Enter
	see "TERM=$term: refused with exit status 2" 20 screen_has "^END$RUN=2\$"
	find_dash && kill -TERM "$DPID" && wait_for 10 gone "$DPID" # only if it wrongly started
	DPID=
	check "TERM=$term: one line on stderr naming the terminal type" \
		eval '[ "$(wc -l <"$TMP/term.err")" -eq 1 ] && grep -q "$term" "$TMP/term.err"'
	diag "$TMP/term.err"
done
check "TERM=dumb: no trace file is created" test ! -e "$TMP/new.json"
check "an unknown TERM: an existing trace file is left untouched" test "$(cat "$TMP/keep.json")" = kept

check "no worker of this test is left" kids_gone
