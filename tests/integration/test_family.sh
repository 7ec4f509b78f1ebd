#!/usr/bin/env bash
# test_family.sh: observing a program, the tool signals only what it can prove is of the program's
# family. Names planted in /dev/shm (for an unrelated process of the same user, one of another
# user, the tool itself, a malformed one) are counted and ignored: nothing they name is signalled
# and no copy fails. A process of the program that ended and whose pid another process took
# (forced with /proc/sys/kernel/ns_last_pid) ends its row and is never signalled. A process that
# runs exec after OpenCL use is observed in its new image, its batches counted in one row. What a
# copy left running in a session of its own is ended with the run, and no zombie stays.
# tier: fast, about 30 s
. "$(dirname "$0")/lib.sh"
CNT="$FIXTURES/cl_counts"
check "the C test program is built" test -x "$CNT"
device_from_here

# field LOG EXPR: a Python expression over the JSONL log's last row of each process (rows).
field() {
	python3 - "$1" "$2" <<'PYEOF'
import json, sys
last = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("kind") == "worker":
        last[r["id"]] = r
rows = [last[k] for k in sorted(last, key=int)]
print(eval(sys.argv[2]))
PYEOF
}
has_row() { [ -s "$1" ] && grep -q "\"kind\":\"worker\".*$2" "$1"; }

OTHER=gdfam$$
cleanup_user() {
	pkill -9 -u "$OTHER" 2>/dev/null
	del_user "$OTHER"
}
on_exit 'cleanup_user; tap_cleanup'

# --- names planted in /dev/shm ---
add_user -M -s /bin/sh "$OTHER"
check "a second user for the test exists" test -n "$(id -u "$OTHER" 2>/dev/null)"
sleep 300 &
mine=$!
runuser -u "$OTHER" -- sleep 300 &
sleep 0.5
theirs=$(pgrep -u "$OTHER" -x sleep | head -1)
HOLD="$TMP/hold"
CL_COUNTS_HOLD="$HOLD" "$BIN" --headless -i 0.2 -f jsonl -o "$TMP/forged.log" -n 1 -- "$CNT" 3 2 2>"$TMP/forged.err" &
sup=$!
wait_for 30 test -d /proc/$sup
pre=/dev/shm/gputop-decode.$UID_.$sup.o
for p in $mine $sup; do
	: >"${pre}0123456789abcdef.$p" && chmod 600 "${pre}0123456789abcdef.$p"
done
: >"${pre}zzzz.$mine"
runuser -u "$OTHER" -- sh -c ": >'${pre}fedcba9876543210.$theirs'; chmod 600 '${pre}fedcba9876543210.$theirs'"
wait_for 60 has_row "$TMP/forged.log" '"batches":3,'
touch "$HOLD"
wait $sup
ok $? "names planted for the tool, another process of ours, another user's process: the run ends 0"
check "the tool said it ignored them" grep -q "ignored /dev/shm/gputop-decode" "$TMP/forged.err"
check "the other processes named were not signalled" kill -0 $mine
check "another user's process named was not signalled" kill -0 "$theirs"
check "one row, the copy, exited with its 3 batches" \
	test "$(field "$TMP/forged.log" "[(r['state'], r['batches']) for r in rows]")" = "[('exited', 3)]"
rm -f "${pre}"*
kill $mine
wait $mine 2>/dev/null
pkill -u "$OTHER" -x sleep
rm -f "$HOLD"

# --- another user's run beside ours ---
# Theirs observes a program of theirs; ours ends: their tool, program and sentinel live on, and
# then theirs ends 0 with no segment of theirs left.
OTMP=$(mktemp -d)
chmod 755 "$OTMP"
chown "$OTHER" "$OTMP"
runuser -u "$OTHER" -- env HOME="$OTMP" POCL_CACHE_DIR="$OTMP/pocl" "$BIN" --headless -i 0.2 -o "$OTMP/log" -n 1 -- sleep 300 2>"$OTMP/err" &
wait_for 60 eval 'grep -q observing "$OTMP/err"'
their_sup=$(pgrep -o -u "$OTHER" -f "gputop-decode --headless")
CL_COUNTS_HOLD="$HOLD" "$BIN" --headless -i 0.2 -f jsonl -o "$TMP/beside.log" -n 1 -- "$CNT" 2 1 2>"$TMP/beside.err" &
sup=$!
wait_for 60 has_row "$TMP/beside.log" '"batches":2,'
touch "$HOLD"
wait $sup
ok $? "our run beside another user's: ends 0"
check "their tool and the program it observes live on" \
	test -n "$their_sup" -a "$(pgrep -u "$OTHER" -x sleep | wc -l)" -ge 1 && kill -0 "$their_sup"
kill -INT "$their_sup"
wait_for 20 eval "! kill -0 $their_sup 2>/dev/null"
check "their run then ends, its program with it, no segment of theirs left" \
	test "$(pgrep -u "$OTHER" | wc -l)" -eq 0 -a -z "$(ls /dev/shm | grep "^gputop-decode\.$(id -u "$OTHER")\.")"
rm -rf "$OTMP" "$HOLD"

# --- a pid taken by another process after the observed one ended ---
# The copy (a shell) starts cl_counts, which waits for $HOLD after its loop; once its row is seen
# running, it ends, and the next pid is steered to it (as root, where ns_last_pid is writable).
if [ -w /proc/sys/kernel/ns_last_pid ] && (cat /proc/sys/kernel/ns_last_pid >/proc/sys/kernel/ns_last_pid) 2>/dev/null; then
	cat >"$TMP/parent.sh" <<-EOF
	CL_COUNTS_HOLD="$HOLD" "$CNT" 2 1 &
	echo \$! >"$TMP/child.pid"
	wait
	sleep 300
	EOF
	"$BIN" --headless -i 0.2 -f jsonl -o "$TMP/reuse.log" -n 1 -- sh "$TMP/parent.sh" 2>"$TMP/reuse.err" &
	sup=$!
	wait_for 60 has_row "$TMP/reuse.log" '"batches":2,.*"command":"cl_counts"'
	child=$(cat "$TMP/child.pid")
	touch "$HOLD"
	wait_for 20 eval "! kill -0 $child 2>/dev/null"
	taker=0
	for try in $(seq 50); do
		echo $((child - 1)) >/proc/sys/kernel/ns_last_pid 2>/dev/null || break
		sleep 300 &
		if [ $! -eq "$child" ]; then
			taker=$child
			break
		fi
		kill $! 2>/dev/null
		wait $! 2>/dev/null
	done
	check "the ended process's pid was taken by another process" test "$taker" -eq "$child"
	sleep 1
	kill -INT $sup
	wait $sup
	ok $? "the run ends 0"
	check "the process that took the pid was not signalled" kill -0 "$taker"
	check "the ended process's row: exited, with its 2 batches" \
		test "$(field "$TMP/reuse.log" "[(r['state'], r['batches']) for r in rows if r['command'] == 'cl_counts']")" = "[('exited', 2)]"
	kill "$taker" 2>/dev/null
	rm -f "$HOLD"
else
	ok 0 "# SKIP a pid steered with ns_last_pid: not writable here"
fi

# --- exec after OpenCL use ---
CL_COUNTS_THEN="$CNT" "$BIN" --headless -i 0.2 -f jsonl -o "$TMP/exec.log" -n 1 -- "$CNT" 3 2 2>"$TMP/exec.err"
ok $? "a program that runs exec of itself after its loop: the run ends 0"
check "the tool says its new image is observed" grep -q "ran exec: its new image" "$TMP/exec.err"
check "one row, 6 batches and 12 launches: both images counted" \
	test "$(field "$TMP/exec.log" "[(r['state'], r['batches'], r['launches']) for r in rows]")" = "[('exited', 6, 12)]"

# --- a copy the library never loads into ---
"$BIN" --headless -i 0.2 -f jsonl -o "$TMP/unobs.log" -n 1 -- \
	sh -c 'exec env -u LD_PRELOAD -u OPENCL_LAYERS sleep 3' 2>"$TMP/unobs.err"
ok $? "a copy whose environment drops the library's variables: the run ends 0"
check "its row says it is not observed, and why" test "$(field "$TMP/unobs.log" "rows[0].get('error')")" = \
	"not observed: its environment dropped LD_PRELOAD and OPENCL_LAYERS"
check "the run said so on stderr" grep -q "copy 1 (pid [0-9]*) is not observed: its environment dropped" "$TMP/unobs.err"

# --- what a copy left running, in a session of its own ---
"$BIN" --headless -i 0.2 -f jsonl -o "$TMP/left.log" -n 1 -D 1 -- \
	sh -c "setsid sh -c 'trap \"\" TERM; echo \$\$ >$TMP/left.pid; exec sleep 300' & $CNT 2 1" 2>"$TMP/left.err" &
sup=$!
wait $sup
ok $? "a copy that leaves a process behind in its own session: the run ends 0"
left=$(cat "$TMP/left.pid" 2>/dev/null)
check "what it left was ended with the run" test -n "$left" -a ! -e "/proc/$left"
check "no segment of the run is left" test "$(segments_of $sup)" -eq 0
