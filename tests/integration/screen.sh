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
# Worker rows in a state (a regular expression), as drawn: ">" in the first column marks the
# selected row, "*" in the second a tagged one.
rows_in() { pane | grep -cE "^[> ][* ] *[0-9]+ +[0-9]+ +($1) "; }
rows_are() { [ "$(rows_in "$1")" -eq "$2" ]; }
kids_are() { [ "$(children_of "$DPID")" -eq "$1" ]; }
# The dashboard: the gputop-decode process the pane's shell (SHPID) started; sets DPID.
find_dash() { DPID=$(pgrep -P "$SHPID" -f gputop-decode | head -1); [ -n "$DPID" ]; }
# click X Y: a press and a release of the left button at cell X, Y (from 0), as a terminal
# sends them to an application that asked for the mouse: xterm's normal encoding, which TERM=screen
# names (kmous=\E[M): ESC [ M, then 32 + button (3: released), 33 + X and 33 + Y, each one byte.
click() {
	local x y
	x=$(printf "\\$(printf %o $((33 + $1)))")
	y=$(printf "\\$(printf %o $((33 + $2)))")
	"${TM[@]}" send-keys -t main -l $'\e[M '"$x$y"
	"${TM[@]}" send-keys -t main -l $'\e[M#'"$x$y"
}
# The line (from 0) and column (from 0) where the regular expression $1 first matches on the
# screen, as "LINE COLUMN".
where() { pane | awk -v re="$1" 'match($0, re) { print NR - 1, RSTART - 1; exit }'; }
# The worker table's head line: every word in it is a column's full name, the breakdown bar's
# heading and legend, or the note of the rows shown ("rows 1-9 of 20", or "1-9/20").
HEADS='id|pid|state|Mbit/s|Mitem/s|batches|kbusy%|kgap_us|bgap_us|lost|qwait_us|gen_thr|gen_us'
HEADS+='|h2d_us|kern_us|d2h_us|oth_us|ovl_us|bovl_us|breakdown|[gwqkro]|rows|of|[0-9]+(-[0-9]+(/[0-9]+)?)?'
head_line() { pane | grep -E '^ +id +pid ' | head -1; }
# The sort column's head $1 drawn in its own colour (cyan behind it), and no other.
sort_marked() {
	local l
	l=$("${TM[@]}" capture-pane -e -p -t main | grep -E 'pid.*batches' | head -1)
	grep -qE $'\e\\[([0-9;]*;)?46(;[0-9;]*)?m(\e\\[[0-9;]*m)* *'"$1"$'( |\e|$)' <<<"$l" &&
		[ "$(grep -oE $'\e\\[([0-9;]*;)?46(;[0-9;]*)?m' <<<"$l" | wc -l)" -eq 1 ]
}
heads_whole() {
	local l
	l=$(head_line)
	[ -n "$l" ] && ! tr -s ' ' '\n' <<<"$l" | grep -vxE "$HEADS|" | grep -q .
}
