#!/usr/bin/env bash
# test_settings.sh: the dashboard's config file ($XDG_CONFIG_HOME/gputop-decode/config) in a real
# terminal (a private tmux server), with no workers (-n 0: only the settings matter): written at
# the end (sort, interval, the columns chosen and ordered on the setup screen, F2), read at the
# next start, an -i of the command line winning for its run only, a faulty file named with its
# line and left alone, --no-config reading and writing nothing; headless runs never touch it.
# tier: fast, about 5 s
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/screen.sh"

DPID= RUN=0
CONF="$XDG_CONFIG_HOME/gputop-decode/config"

settings_cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait_for 10 gone "$DPID"
	"${TM[@]}" kill-server >/dev/null 2>&1
	tap_cleanup
}
on_exit settings_cleanup
trap "exit 143" TERM INT

# launch ARGS...: the dashboard with no workers; its standard error goes to $TMP/err<run>.
launch() {
	RUN=$((RUN + 1))
	DPID=
	keys "clear; $BIN -n 0 -s 1000 -l 1 $* 2>$TMP/err$RUN; echo END$RUN=\$?" Enter
	wait_for 30 find_dash && wait_for 60 screen_has "^ +id +pid "
}
quit() {
	keys q
	wait_for 30 screen_has "^END$RUN=0\$"
	local rc=$?
	DPID=
	return $rc
}
arrow_down='[▼v]'
arrow_up='[▲^]'

"$BIN" --headless --no-config -n 0 -D 0.05 >/dev/null 2>"$TMP/nc.err"
rc=$?
check "--no-config is the dashboard's: refused with --headless (status 2)" \
	eval '[ $rc -eq 2 ] && grep -q -- "--no-config: does not apply to --headless" "$TMP/nc.err"'

device_from_here

"${TM[@]}" new-session -d -x 100 -y 30 -s main "env PS1='$ ' LC_ALL=C.UTF-8 bash --norc --noprofile"
SHPID=$("${TM[@]}" display -p -t main '#{pane_pid}')

# ---- no file yet: the defaults; the changes made are written at the end ----
check "no config file before the first run" test ! -e "$CONF"
check "the dashboard starts with no config file" launch
check "  the defaults: sort by id ascending, interval 1 s" \
	eval 'screen_has "sort: id $arrow_up " && screen_has "interval 1 s"'
keys s I ']'
see "s, I, ]: sort by pid, largest first; interval 2 s" 30 \
	eval 'screen_has "sort: pid $arrow_down " && screen_has "interval 2 s"'
keys F2
see "F2 opens the setup screen: a checkbox per column" 30 \
	eval 'screen_has "\[x\] id " && screen_has "\[x\] lost " && screen_has "\[x\] breakdown "'
# Down 3: Mbit/s; [ moves it left of state. Down 5 more: lost; Space hides it.
keys Down Down Down '['
see "  [ moves Mbit/s up, before state" 30 eval 'pane | grep -A1 "\[x\] pid " | grep -q "\[x\] Mbit/s "'
keys Down Down Down Down Down Down ' '
see "  Space unticks lost" 30 screen_has "\[ \] lost "
keys Escape
see "  Esc leaves; the table shows the choice at once" 30 \
	eval '! screen_has "\[x\] id " && screen_has "^ +id +pid +Mbit/s +state +batches .* bgap_us +qwait_us" &&
		! head_line | grep -q " lost "'
check "q writes the config file" eval 'quit && test -f "$CONF"'
diag "$CONF"
check "  with the sort, the interval and the columns in their order" \
	eval 'grep -qx "sort = pid" "$CONF" && grep -qx "sort_order = descending" "$CONF" &&
		grep -qx "interval = 2" "$CONF" &&
		grep -qx "columns = id pid rate state batches kbusy% kgap_us bgap_us qwait_us .* breakdown" "$CONF"'
check "  written whole: no temporary file left beside it" \
	test "$(ls "$XDG_CONFIG_HOME/gputop-decode")" = config

# ---- read at the next start; -i of the command line wins for its run only ----
check "the next start reads it" launch
check "  sort by pid, largest first; interval 2 s; Mbit/s before state, no lost" \
	eval 'screen_has "sort: pid $arrow_down " && screen_has "interval 2 s" &&
		screen_has "^ +id +pid +Mbit/s +state " && ! head_line | grep -q " lost "'
check "  and quitting with nothing changed leaves the file as it was" \
	eval 'cp "$CONF" "$TMP/conf.1" && quit && cmp -s "$CONF" "$TMP/conf.1"'
check "-i 0.5 on the command line" launch -i 0.5
check "  wins over the file's interval; the rest is the file's" \
	eval 'screen_has "interval 0.5 s" && screen_has "sort: pid $arrow_down "'
keys s
see "  s: sort by the next column (Mbit/s, as the columns are ordered now)" 30 screen_has "sort: Mbit/s "
check "  at the end the file keeps its own interval, and the new sort" \
	eval 'quit && grep -qx "interval = 2" "$CONF" && grep -qx "sort = rate" "$CONF"'

# ---- a faulty file: named with its line, not used, left as it is ----
printf '[dashboard]\nsort = pid\ncolumns = id pid nosuch\n' >"$CONF"
cp "$CONF" "$TMP/conf.bad"
check "a faulty config file: the dashboard still starts" launch
see "  the status line names the file, the line and the fault" 30 \
	screen_has "config:3: unknown column 'nosuch'"
check "  the defaults are used, none of the file's settings" \
	eval 'screen_has "sort: id $arrow_up " && screen_has " lost +qwait_us "'
keys s
check "  at the end, the file is left as it was; one line on stderr says why" \
	eval 'quit && cmp -s "$CONF" "$TMP/conf.bad" && [ "$(wc -l <"$TMP/err$RUN")" -eq 1 ] &&
		grep -q "$CONF:3: unknown column .nosuch." "$TMP/err$RUN"'
diag "$TMP/err$RUN"
"$BIN" --headless -n 0 -D 0.05 >/dev/null 2>"$TMP/hl.err"
rc=$?
check "headless does not read it (status 0, nothing on stderr)" eval '[ $rc -eq 0 ] && [ ! -s "$TMP/hl.err" ]'
printf '[dashboard]\ncolour = pink\n' >"$CONF"
check "another fault (colour = pink): named too" launch
see "  colour 'pink' is not one of the names (as many words as the line holds)" 30 \
	screen_has "config:2: colour 'pink' is not one of auto,"
quit

# ---- --no-config: neither read nor written ----
printf '[dashboard]\nsort = pid\ninterval = 5\n' >"$CONF"
cp "$CONF" "$TMP/conf.2"
check "--no-config: the dashboard starts" launch --no-config
check "  with the defaults, not the file's sort and interval" \
	eval 'screen_has "sort: id $arrow_up " && screen_has "interval 1 s"'
keys s
check "  and leaves the file untouched" eval 'quit && cmp -s "$CONF" "$TMP/conf.2"'

rm -rf "$XDG_CONFIG_HOME"
"$BIN" --headless -n 0 -D 0.05 >/dev/null 2>&1
check "a headless run writes no config file" test ! -e "$CONF"
