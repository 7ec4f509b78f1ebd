#!/usr/bin/env bash
# test_sentinel.sh: what an observed program leaves running is ended after the tool, however the
# tool ends and whatever the program does (doc/RELIABILITY.md, "the sentinel"). A child that
# leaves the copy's session, ignores SIGTERM and forks a successor every 2 ms (so no pid of it
# stays) is gone after a normal end and after a SIGKILL of the tool. Run by an ordinary user, a
# SIGKILL of the tool also ends a child that made itself not dumpable (its environment is then
# unreadable to its own user: its parent proves it of the family) and a copy that did (its
# report does). Each run sits under a subreaper (tests/fixtures/reaper.c), which ends exactly
# when no process of the run is left, the sentinel included: no count races a process that
# forks and exits faster than /proc can be listed.
# tier: device, about 35 s
. "$(dirname "$0")/lib.sh"
HOP="$FIXTURES/hopper"
REAP="$FIXTURES/reaper"
check "the test programs are built" test -x "$HOP" -a -x "$REAP"
device_from_here

RPS=() # the subreapers started: each with what is left under it ended at the end
OTHER=
sent_cleanup() {
	local r
	for r in "${RPS[@]}"; do # stop, then kill, what is left: nothing when every check passed
		for _ in 1 2 3 4 5; do
			kill -STOP $(cat /proc/"$r"/task/"$r"/children 2>/dev/null) 2>/dev/null
			kill -KILL $(cat /proc/"$r"/task/"$r"/children 2>/dev/null) 2>/dev/null
		done
		kill -KILL "$r" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "$OTHER" ] && del_user "$OTHER"
	tap_cleanup
}
on_exit sent_cleanup

# observe NAME MODE DIR [PREFIX...]: the tool observing `hopper MODE DIR/NAME.pid` under a
# subreaper, through PREFIX (a command that execs the rest: setpriv); its log DIR/NAME.log, its
# stderr $TMP/NAME.err. Sets RP (the subreaper), SUP (the tool) and PF (the pid file).
observe() {
	local name=$1 mode=$2 dir=$3
	shift 3
	PF="$dir/$name.pid"
	"$@" "$REAP" "$BIN" --headless -i 0.5 -o "$dir/$name.log" -- "$HOP" "$mode" "$PF" 2>"$TMP/$name.err" &
	RP=$!
	RPS+=("$RP")
	SUP=
	wait_for 60 test -s "$PF" && SUP=$(pgrep -P "$RP" -x gputop-decode)
	[ -n "$SUP" ] || { diag "$TMP/$name.err" && false; }
}
pid_in() { tr -d ' \n' <"$1" 2>/dev/null; }
changed() { [ "$(pid_in "$1")" != "$2" ]; }
# hopping FILE: the pid in FILE changes twice: a process forked its successor and exited, twice.
hopping() {
	local a
	a=$(pid_in "$1") && wait_for 10 changed "$1" "$a" || return 1
	a=$(pid_in "$1") && wait_for 10 changed "$1" "$a"
}
# ended PID: not running (a zombie waiting for its parent counts as ended).
ended() { ! ps -o stat= -p "$1" 2>/dev/null | grep -qv Z; }
sentinel_of() { pgrep -P "$1" -x gputop-sentinel >/dev/null; }
# left_under RP: the subreaper's children, for a failure's diagnosis.
left_under() { ps -o pid,ppid,stat,args --ppid "$1"; }

# ---- a hopper: in a session of its own, deaf to SIGTERM, a new pid every 2 ms ----
for end in TERM KILL; do
	observe "hop$end" hop "$TMP"
	rc=$?
	ok $rc "SIG$end: the tool observes a program whose child hops"
	[ $rc -eq 0 ] || continue
	check "  the child hops: its pid changes" hopping "$PF"
	check "  the tool's sentinel runs" sentinel_of "$SUP"
	kill -"$end" "$SUP"
	if [ "$end" = TERM ]; then
		# The tool waits for its sentinel: once it has ended, nothing may be left.
		check "  the tool ends within 40 s" wait_for 40 ended "$SUP"
		check "  and when it has, no process of the run is left (5 s for the subreaper to reap)" wait_for 5 ended "$RP"
	else
		check "  within 15 s no process of the run is left, the sentinel included" wait_for 15 ended "$RP"
	fi
	ended "$RP" || left_under "$RP" | diag
done

# ---- an ordinary user's run: what hides its environment from that user ----
if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null && command -v setpriv >/dev/null; then
	OTHER=gdsent$$
	add_user -M -N -s /usr/sbin/nologin "$OTHER" || OTHER=
fi
if [ -z "$OTHER" ]; then
	ok 0 "# SKIP an ordinary user's run: not root, or no useradd/setpriv"
	exit 0
fi
AS_OTHER=(setpriv --reuid="$OTHER" --regid="$(id -g "$OTHER")" --clear-groups --)
chmod o+x "$TMP"
mkdir -m 1777 "$TMP/pub" "$TMP/pub/pocl"
# unreadable PID: its user cannot read its environment, while root finds the run's entry in it.
unreadable() {
	! "${AS_OTHER[@]}" cat /proc/"$1"/environ >/dev/null 2>&1 &&
		tr '\0' '\n' </proc/"$1"/environ | grep -q "^GPUTOP_DECODE_OBSERVE=$SUP:"
}
for mode in hide hide-self; do
	POCL_CACHE_DIR="$TMP/pub/pocl" observe "$mode" "$mode" "$TMP/pub" "${AS_OTHER[@]}"
	rc=$?
	ok $rc "an ordinary user observes 'hopper $mode'"
	[ $rc -eq 0 ] || continue
	hid=$(pid_in "$PF")
	copy=$(pgrep -P "$SUP" -x hopper)
	if [ "$mode" = hide ]; then
		check "  its copy's child is not dumpable: its environment is unreadable to the user" unreadable "$hid"
		check "  the child's parent is the copy" test "$(ps -o ppid= -p "$hid" | tr -d ' ')" = "$copy"
	else
		check "  its copy is not dumpable: its environment is unreadable to the user" unreadable "$hid"
		check "  the copy is the tool's child" test "$hid" = "$copy"
	fi
	check "  the tool's sentinel runs" sentinel_of "$SUP"
	kill -KILL "$SUP"
	check "  SIGKILL of the tool: within 15 s no process of the run is left" wait_for 15 ended "$RP"
	ended "$RP" || left_under "$RP" | diag
done
