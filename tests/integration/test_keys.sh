#!/usr/bin/env bash
# test_keys.sh: the dashboard's keys in a real terminal (a private tmux server) with six real
# workers: help by F1 and ?, Esc; the signal menu (nothing before Enter; KILL ends a worker,
# STOP and CONT show in its state and in the process); Home, End and PgDn; the sort by s, < >,
# F6 and I, shown in the header, the selection following its worker; the mouse (a click on a
# column's head sorts, again reverses, a click on a row selects); [ and ] step the interval and
# come back to 1 s; n/a (no unit) in paused rows, the summary "paused"; the table at
# 80x24, 140x45 and 200x50 with no heading cut; Space tags two workers, > stays on a tagged
# selected row, x stops both; K asks first (n keeps, y kills); r with nothing contradicting it;
# the selected worker's graphs; the event rows these actions log. The sort column's head is
# marked in a colour of its own. Then a program that ignores
# SIGTERM: x runs out of its grace and the key bar says so.
# tier: device, about 25 s
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/screen.sh"

DPID=

keys_cleanup() {
	[ -n "$DPID" ] && kill -CONT $(ps -o pid= --ppid "$DPID") 2>/dev/null
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait_for 10 gone "$DPID"
	"${TM[@]}" kill-server >/dev/null 2>&1
	tap_cleanup
}
on_exit keys_cleanup
trap "exit 143" TERM INT # a timeout still ends the dashboard and its workers

# The pid on worker id $1's row; the kernel's state letter of a process (T: stopped).
pid_of() { pane | sed -nE "s/^[> ][* ] *$1 +([0-9]+) .*/\\1/p" | head -1; }
proc_state() { sed -E 's/^[0-9]+ \(.*\) (.) .*/\1/' "/proc/$1/stat" 2>/dev/null; }
# The display line of worker id $1's row (1: the first row).
row_of() { pane | grep -E "^[> ][* ] *[0-9]+ +[0-9]+ " | grep -nE "^[> ][* ] *$1 " | cut -d: -f1; }
# The cell under heading $1 (a column's name) in worker id $2's row: the same cells as the head.
cell_of() {
	pane | awk -v h="$1" -v id="$2" '
		/^ +id +pid / && !at { at = index($0, " " h " ") ; if (!at) at = index($0, " " h); len = length(h) }
		at && $0 ~ ("^[> ][* ] *" id " ") { print substr($0, at + 1, len); exit }' | tr -d ' '
}
arrow_down='[▼v]'
arrow_up='[▲^]'

"${TM[@]}" new-session -d -x 100 -y 30 -s main "env PS1='$ ' LC_ALL=C.UTF-8 bash --norc --noprofile"
SHPID=$("${TM[@]}" display -p -t main '#{pane_pid}')
keys "clear; nice -n 10 $BIN -n 6 -s 100000 -l 1 -i 0.2 -f jsonl -o $TMP/keys.jsonl; echo END=\$?" Enter
see "the dashboard starts" 60 find_dash
DASH=$DPID # its segments are named by its pid
see "six worker rows, running" 90 rows_are running 6
check "the header shows the sort, by id ascending" screen_has "sort: id $arrow_up "
check "  the table marks the sort column's head, id, in a colour of its own" sort_marked id
# Paused (they sleep) while only the screen is looked at: a loaded machine keeps its cores.
keys p
see "p: six paused rows" 60 rows_are paused 6
see "  paused rows say n/a for Mbit/s and kbusy%, never 0.00, with no unit after it" 60 \
	rows_are "paused +n/a +[0-9]+ +n/a " 6
see "  the summary says paused, no idle verdict on stopped workers" 60 \
	eval 'screen_has "^paused \(p resumes\)" && ! screen_has "idle: other"'

# ---- help: F1 and ?, Esc closes ----
for k in F1 '?'; do
	keys "$k"
	see "$k shows the help" 60 eval 'screen_has "keys$" && screen_has "^  k F9 +a menu"'
	keys Escape
	see "  Esc closes it" 60 eval 'screen_has "kbusy%" && ! screen_has "keys$"'
done
keys h
see "the help lists every key of the table" 60 eval \
	'[ "$(pane | grep -cE "^  (h \? F1|\+ =|-|Up Down|PgUp PgDn|Home End|Space|U|x|k F9|K|s|< >|F6|I|F2 S|\[ \]|p|c|r|Esc|q F10) ")" -eq 22 ]'
keys Escape

# ---- moving: End, Home, PgDn; the selected worker's graphs follow ----
keys End
see "End selects the last worker" 60 screen_has "^> +6 +[0-9]+ "
see "  its own graphs are headed worker 6" 60 screen_has "^worker 6 Mbit/s"
keys Home
see "Home selects the first" 60 eval 'screen_has "^> +1 +[0-9]+ " && screen_has "^worker 1 Mbit/s" && screen_has "^worker 1 kbusy"'
keys NPage
see "PgDn goes a page down (to the last of six)" 60 screen_has "^> +6 +[0-9]+ "
keys Home

# ---- sorting ----
keys s
see "s: sort by the next column (pid)" 60 screen_has "sort: pid $arrow_up "
see "  the mark moves to pid's head" 60 sort_marked pid
keys '>'
see ">: the column to the right (state)" 60 screen_has "sort: state $arrow_up "
keys '<'
see "<: back to pid" 60 screen_has "sort: pid $arrow_up "
keys I
see "I inverts: pid descending, worker 1 still selected and now on the last row" 60 \
	eval 'screen_has "sort: pid $arrow_down " && [ "$(row_of 1)" = 6 ] && [ "$(row_of 6)" = 1 ] && screen_has "^> +1 "'
keys F6
see "F6 opens the sort menu" 60 screen_has "sort by \\(now pid\\)"
keys Down Down Enter
see "  Down Down Enter: sort by Mbit/s, largest first" 60 \
	eval 'screen_has "sort: Mbit/s $arrow_down " && ! screen_has "sort by \\("'
check "  the mark on Mbit/s's head" sort_marked Mbit/s
keys F6 Home Enter
see "  F6 Home Enter: by id again" 60 eval 'screen_has "sort: id $arrow_up " && [ "$(row_of 1)" = 1 ]'

# ---- the mouse: heads sort, rows select ----
read -r HY PX < <(where " pid ")
click $((PX + 2)) "$HY"
see "a click on the head of pid sorts by pid, smallest first" 60 screen_has "sort: pid $arrow_up "
click $((PX + 2)) "$HY"
see "  a second click reverses it: worker 1 on the last row" 60 \
	eval 'screen_has "sort: pid $arrow_down " && [ "$(row_of 1)" = 6 ]'
read -r RY _ < <(where "^[> ][* ] +4 ")
click 3 "$RY"
see "a click on worker 4's row selects it" 60 screen_has "^> +4 +[0-9]+ "
read -r _ IX < <(where " id ")
click $((IX + 2)) "$HY"
see "a click on the head of id: by id again, worker 4 still selected" 60 \
	eval 'screen_has "sort: id $arrow_up " && [ "$(row_of 1)" = 1 ] && screen_has "^> +4 "'
keys Home

# ---- the table at three sizes: whole headings, the bar readable at 140 ----
# (line 0 ends with the clock at the right edge: the screen has been drawn at the new size)
drawn_at() { [ "$(pane | head -1 | LC_ALL=C.UTF-8 wc -m)" -eq $(($1 + 1)) ]; }
for size in 80x24 140x45 200x50; do
	"${TM[@]}" resize-window -t main -x "${size%x*}" -y "${size#*x}"
	see "$size: every word of the table's head is a full heading" 60 \
		eval 'drawn_at "${size%x*}" && screen_has "^ +id +pid .*breakdown" && heads_whole'
	[ "$size" = 80x24 ] || check "  the breakdown bar has its legend (21 cells or more)" \
		eval 'head_line | grep -q "breakdown g w q k r o"'
	diag <(head_line)
done
"${TM[@]}" resize-window -t main -x 100 -y 30
see "back to 100x30" 60 drawn_at 100

# ---- the interval ----
see "the header shows the interval" 30 screen_has "interval 0.2 s"
keys ']'
see "]: a step up, 0.5 s" 60 screen_has "interval 0.5 s"
keys ']'
see "]: 1 s" 60 screen_has "interval 1 s"
keys '[' '[' '['
see "[ [ [: 0.5, 0.2 and 0.1 s" 60 screen_has "interval 0.1 s"
keys '[' '['
see "[ at the bound of -i: 0.05 s, and no further (the log shows no other change)" 60 \
	screen_has "interval 0.05 s"
keys ']' ']' ']' ']'
see "] ] ] ]: 0.1, 0.2, 0.5 and 1 s again" 60 screen_has "interval 1 s"
keys '[' '['
see "[ [: back to 0.2 s" 60 screen_has "interval 0.2 s"

# ---- the signal menu ----
keys p
see "p again: six running rows" 60 rows_are running 6

keys End k
see "k opens the signal menu for the selected worker" 60 screen_has "signal to worker 6 \\(pid [0-9]+\\)"
keys Down Escape
see "  Esc closes it" 60 eval '! screen_has "signal to worker"'
# (waited for: on a loaded machine a row can read stalled for a moment; a signal sent would
# leave a row that never runs again)
see "  Down then Esc sent nothing: six workers, six running rows (the log shows no signal)" 60 \
	eval 'kids_are 6 && rows_are running 6'
keys F9 Down Enter
see "F9, KILL, Enter: worker 6 is killed (exited, killed by SIGKILL)" 120 \
	screen_has "^> +6 +[0-9]+ +exited .*killed by SIGKILL"
see "  five worker processes left" 60 kids_are 5

keys Home
see "Home: worker 1 selected" 60 screen_has "^> +1 +[0-9]+ +running"
P1=$(pid_of 1)
keys k s Enter
see "STOP: worker 1 shows paused" 60 screen_has "^> +1 +[0-9]+ +paused "
see "  and its process is stopped" 60 eval '[ "$(proc_state "$P1")" = T ]'
keys k c y
see "CONT (c, y): worker 1 runs again" 120 screen_has "^> +1 +[0-9]+ +running "
check "  its process is no longer stopped" eval '[ "$(proc_state "$P1")" != T ]'

# ---- tags ----
keys Space
see "Space tags worker 1 and selects worker 2" 60 eval 'screen_has "^ \\* +1 " && screen_has "^> +2 "'
keys Space
see "Space again tags worker 2" 60 eval 'screen_has "^ \\* +1 " && screen_has "^ \\* +2 "'
keys Up
see "Up: worker 2, tagged and selected, shows both marks" 60 screen_has "^>\\* +2 "
keys x
see "x stops both tagged workers" 60 eval 'screen_has "^[ >] +1 +[0-9]+ +exited" && screen_has "^[ >] +2 +[0-9]+ +exited"'
see "  three worker processes left, workers 3 to 5 running" 60 eval 'kids_are 3 && rows_are running 3'

# ---- K asks first ----
keys Down K
see "K on worker 3 asks before anything is sent" 60 screen_has "kill worker 3 \\(pid [0-9]+\\) with SIGKILL\\?"
keys n
see "  n: the question goes, worker 3 keeps running" 60 \
	eval '! screen_has "with SIGKILL\\?" && screen_has "^> +3 +[0-9]+ +running" && kids_are 3'
keys K y
see "  K y: worker 3 is killed (exited, killed by SIGKILL)" 60 screen_has "^> +3 +[0-9]+ +exited .*killed by SIGKILL"
see "  two worker processes left" 60 kids_are 2

# ---- r: nothing on the screen contradicts it (a 60 s interval: no frame comes to change it) ----
keys p
see "p: the two left paused" 60 rows_are paused 2
keys ']' ']' ']' ']' ']' ']' ']' ']'
see "] eight times: 60 s, the longest" 60 screen_has "interval 60 s"
keys r
see "r: the ended rows go, the two left show n/a and 0 batches, the summary n/a" 60 \
	eval 'rows_are "paused +n/a +0 +n/a " 2 && [ "$(rows_in "[a-z ]+")" -eq 2 ] &&
		screen_has "^Mbit/s +n/a" && screen_has "^at 100% busy n/a \\(room n/a" && screen_has "^busy +n/a +idle"'

keys q
see "q quits with status 0" 60 screen_has "^END=0\$"
DPID=
python3 - "$TMP/keys.jsonl" <<'PY'
import json, sys
ev = [(r["state"], r.get("id")) for r in map(json.loads, open(sys.argv[1])) if r["kind"] == "event"]
want = [("pause", None), ("interval-0.5", None), ("interval-1", None), ("interval-0.5", None),
        ("interval-0.2", None), ("interval-0.1", None), ("interval-0.05", None), ("interval-0.1", None),
        ("interval-0.2", None), ("interval-0.5", None), ("interval-1", None), ("interval-0.5", None),
        ("interval-0.2", None), ("resume", None), ("signal-KILL", 6), ("signal-STOP", 1), ("signal-CONT", 1),
        ("stop", 1), ("stop", 2), ("kill", 3), ("pause", None)] + \
       [("interval-%g" % v, None) for v in (0.5, 1, 2, 5, 10, 20, 30, 60)] + [("reset", None)]
assert ev == want, ev
PY
ok $? "the log has an event row for each interval change, signal, stop, kill, pause and reset, in order"
check "no segment left" test -n "$DASH" -a "$(segments_of "${DASH:-0}")" -eq 0

# ---- a stop that runs out of its grace: a program that ignores SIGTERM ----
keys "clear; $BIN -n 2 -i 0.2 --no-config -- sh -c 'echo said-by-the-program; trap \"\" TERM; exec sleep 600'; echo END=\$?" Enter
see "an observed program that ignores SIGTERM: two rows" 60 eval 'find_dash && rows_are "no CL" 2'
DASH=$DPID
keys o
see "o: the programs' output, each line after its row's id" 10 \
	eval 'screen_has "^The programs. output" && screen_has "^\\[1\\] said-by-the-program" && screen_has "^\\[2\\] said-by-the-program"'
keys Escape
see "  Esc closes it" 5 eval 'rows_are "no CL" 2 && ! screen_has "^The programs. output"'
keys x
see "x: after 5 s of SIGTERM the key bar says it did not stop and SIGKILL was sent" 30 \
	screen_has "worker 1 did not stop within 5 s of SIGTERM: SIGKILL sent"
see "  its row: exited, killed by SIGKILL" 10 screen_has "^> +1 +[0-9]+ +exited .*killed by SIGKILL"
keys q
see "  q quits with status 0" 30 screen_has "^END=0\$"
DPID=
check "  no segment of it left" test -n "$DASH" -a "$(segments_of "${DASH:-0}")" -eq 0
