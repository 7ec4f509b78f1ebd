# screen.sh: helpers of the tests that drive the dashboard in a private tmux server (sourced
# after lib.sh). The session is "main"; DPID is the dashboard's pid once the test knows it.
TM=(tmux -S "$TMP/tmux.sock" -f "$TMP/tmux.conf")
printf 'set -g status off\nset -g default-terminal screen\n' >"$TMP/tmux.conf"

pane() { "${TM[@]}" capture-pane -p -t main 2>/dev/null; }
screen_has() { pane | grep -qE -- "$1"; }
keys() { "${TM[@]}" send-keys -t main "$@"; }
# see DESCRIPTION SECONDS COMMAND...: waits (bounded) for the command to succeed, as one TAP
# line; shows the screen when it does not.
see() {
	local desc=$1 secs=$2
	shift 2
	wait_for "$secs" "$@"
	local rc=$?
	ok $rc "$desc"
	[ $rc -eq 0 ] || pane | diag
}
# Worker rows in a state (a regular expression), as drawn: ">" marks the selected row, "*" a
# tagged one.
rows_in() { pane | grep -cE "^[>* ] *[0-9]+ +[0-9]+ +($1) "; }
rows_are() { [ "$(rows_in "$1")" -eq "$2" ]; }
kids_are() { [ "$(children_of "$DPID")" -eq "$1" ]; }
# The dashboard: the gputop-decode process the pane's shell (SHPID) started; sets DPID.
find_dash() { DPID=$(pgrep -P "$SHPID" -f gputop-decode | head -1); [ -n "$DPID" ]; }
