#!/usr/bin/env bash
# test_limits.sh: what another user, the resource limits and a broken installation can do to a
# run: a FIFO at a worker's segment name, a segment removed before the supervisor attached, a
# supervisor started through a symbolic link next to a second instance, a SIGKILLed supervisor
# whose worker is inside a long batch, a worker killed by a signal nobody here sent, ulimit -f,
# -n and -v, a full or read-only /dev/shm, and a kernel source that is empty, a directory, or
# does not build. Every wait is bounded (wait_for); nothing asserts on speed.
# tier: device, about 20 s
. "$(dirname "$0")/lib.sh"
W=(-s 20000 -l 2 -i 0.2) # a small workload: the machine may be a loaded 2-core box

cleanup() {
	stop_started
	tap_cleanup
}
on_exit cleanup

# worker_of SUP: "pid segment-name" of SUP's first worker, once it has been exec'd.
worker_of() {
	pgrep -af -- "--worker=/gputop-decode\.$UID_\.$1\." |
		sed -n "s|^\([0-9]*\) .*--worker=/\(gputop-decode\.$UID_\.$1\.[0-9]*\.[0-9a-f]*\),.*|\1 \2|p" | head -n 1
}
# first_worker SUP: waits (bounded, in short steps) until worker_of answers; sets WPID, WSEG.
first_worker() {
	local i w
	for ((i = 0; i < 3000; i++)); do
		w=$(worker_of "$1")
		[ -n "$w" ] && break
		sleep 0.01
	done
	WPID=${w%% *} WSEG=${w#* }
	[ -n "$w" ]
}
attached() { grep -q "/dev/shm/$2" "/proc/$1/maps" 2>/dev/null; }
# running LOG N: the CSV log's latest window has N running workers.
running() {
	awk -F, '$2 == "worker" { if ($5 == "running") n++ } $2 == "aggregate" { last = n; n = 0 } END { exit !(last == '"$2"') }' "$1" 2>/dev/null
}
# lines_whole FILE: ends with a newline, and every line has as many fields as the first.
lines_whole() {
	[ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] &&
		python3 -c 'import csv, sys; rows = list(csv.reader(open(sys.argv[1], newline=""))); sys.exit(len({len(r) for r in rows}) != 1)' "$1"
}
# quit SUP: SIGTERM; its exit status (SIGKILLed and 137 if it is not gone within a bound).
quit() {
	kill -CONT "$1" 2>/dev/null
	kill -TERM "$1"
	wait_for 20 gone "$1" || kill -9 "$1"
	wait "$1"
}

# ---- nothing another user can create blocks or misleads the supervisor ----
# A FIFO at a worker's segment name (the names are in /proc/PID/cmdline) before the worker made
# its segment: the supervisor reserved the name before it published it, so nothing can be made
# there; the worker, stopped at once in start-up, runs once continued.
start fifo -n 1 -f jsonl "${W[@]}"
S=$SUP
first_worker $S && kill -STOP "$WPID"
check "a worker's segment name exists, ours, before the worker made its segment" \
	test "$(stat -c '%u %a %s' "/dev/shm/$WSEG")" = "$UID_ 600 0"
check "a FIFO cannot be made at it" ! mkfifo -m 600 "/dev/shm/$WSEG" 2>/dev/null
kill -CONT "$WPID"
wait_for 60 grep -qs '"state":"running","id":1,' "$TMP/fifo.log"
ok $? "the worker runs"
quit $S
check "the supervisor ends on SIGTERM with status 0" test $? -eq 0
check "nothing is left at the name" test ! -e "/dev/shm/$WSEG"

# A supervisor started through a symbolic link (its process name is the link's) keeps its live
# segments when a second instance sweeps stale ones at its start.
ln -s "$BIN" "$TMP/gd"
"$TMP/gd" --headless -n 2 "${W[@]}" -o "$TMP/link.log" 2>"$TMP/link.err" &
A=$!
SUPS+=("$A")
wait_for 60 running "$TMP/link.log" 2
ok $? "a supervisor started as $(basename "$TMP/gd") runs 2 workers"
check "its process name is the link's" test "$(cat /proc/$A/comm)" = gd
start second -n 1 -D 0.6 "${W[@]}"
wait $SUP
ok $? "a second instance starts, sweeps and ends normally"
check "the first instance's 2 segments were kept" test "$(segments_of $A)" -eq 2
mark=$(wc -l <"$TMP/link.log")
wait_for 20 eval 'tail -n +$((mark + 1)) "$TMP/link.log" | grep -q ",aggregate," && running "$TMP/link.log" 2'
ok $? "and both its workers keep running"
quit $A
check "it ends with status 0" test $? -eq 0

# ---- a worker whose segment never appears is failed, not left starting ----
# The segment is removed before the supervisor attached: the supervisor is stopped as soon as
# the worker exists, the worker makes its segment, the test removes it, the supervisor goes on.
export GPUTOP_DECODE_ATTACH_TIMEOUT=3
made=1
for try in 1 2 3 4 5; do
	start removed -n 1 -f jsonl "${W[@]}"
	S=$SUP
	if first_worker $S && kill -STOP $S && ! attached $S "$WSEG" &&
		wait_for 60 test -s "/dev/shm/$WSEG" && rm "/dev/shm/$WSEG"; then
		made=0
		break
	fi
	kill -9 $S "$WPID" 2>/dev/null
	wait $S 2>/dev/null
done
unset GPUTOP_DECODE_ATTACH_TIMEOUT
ok $made "a worker's segment is removed before its supervisor attached (attempt $try)"
kill -CONT $S
wait_for 30 grep -qs '"state":"failed","id":1,.*"error":"its shared-memory segment never appeared"' "$TMP/removed.log"
ok $? "after the attach deadline (3 s here) the worker is failed: its segment never appeared"
check "the failure is on stderr" grep -q "worker 1 (pid $WPID) failed: its shared-memory segment never appeared" "$TMP/removed.err"
wait_for 20 gone "$WPID"
ok $? "and the worker is ended"
wait_for 20 gone $S || kill -9 $S
wait $S
check "its only worker failed: the supervisor ends by itself with status 1" test $? -eq 1
check "saying so" grep -q "every worker failed (1 of 1)" "$TMP/removed.err"

# ---- workers end within a bounded time after their supervisor dies, whatever the batch ----
# One batch of 1000 launches over 400000 symbols takes tens of seconds on the CPU device: the
# parent-death SIGTERM alone would wait for it to end.
start orphan -n 1 -s 400000 -l 1000 -i 0.5
S=$SUP
wait_for 90 running "$TMP/orphan.log" 1
ok $? "a worker is inside a long batch"
check "it has its segment" test "$(segments_of $S)" -eq 1
kill -9 $S
wait $S 2>/dev/null
wait_for 12 eval 'test "$(workers_of $S)" -eq 0'
ok $? "after SIGKILL of the supervisor the worker is gone within 12 s"
wait_for 5 eval 'test "$(segments_of $S)" -eq 0'
ok $? "and its segment is removed"

# ---- a worker killed by a signal nobody here sent is failed, with the signal's name ----
# (LLVM's handler in the OpenCL runtime returns from the first SIGSEGV; ASan's would exit 1.)
ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0" start segv -n 2 -f jsonl "${W[@]}"
S=$SUP
wait_for 60 eval 'test "$(grep -cs "\"state\":\"running\"" "$TMP/segv.log")" -ge 2 2>/dev/null'
ok $? "2 workers run"
first_worker $S
for ((i = 0; i < 50; i++)); do
	kill -SEGV "$WPID" 2>/dev/null || break
	sleep 0.2
done
wait_for 20 grep -qs "\"state\":\"failed\",\"id\":[0-9]*,\"pid\":$WPID,.*\"error\":\"killed by SIGSEGV (Segmentation fault)\"" "$TMP/segv.log"
ok $? "a worker sent SIGSEGV is logged failed: killed by SIGSEGV (Segmentation fault)"
check "and so on stderr" grep -q "(pid $WPID) failed: killed by SIGSEGV (Segmentation fault)" "$TMP/segv.err"
check "once" test "$(grep -c "(pid $WPID) failed" "$TMP/segv.err")" -eq 1
quit $S
check "the supervisor ends with status 0" test $? -eq 0

# ---- resource limits ----
# ulimit -f: the log reaches the limit: no SIGXFSZ death mid-line, but "File too large",
# status 1, and whole lines only. The log is standard output appended to a file already near
# the limit, filled with whole log lines. (16 MiB: the OpenCL compiler writes temporary files
# of about 1 MiB, and each worker's segment is 260 KiB.)
"$BIN" --headless -n 2 "${W[@]}" -D 0.6 -o "$TMP/lines.csv"
python3 - "$TMP/lines.csv" "$TMP/fsize.csv" $((16384 * 1024 - 1500)) <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines(True)
out, size, i = open(sys.argv[2], "w"), 0, 0
while size + len(lines[i % len(lines)]) <= int(sys.argv[3]):
    out.write(lines[i % len(lines)])
    size += len(lines[i % len(lines)])
    i += 1
PY
(
	ulimit -f 16384
	exec "$BIN" --headless -n 2 -s 20000 -l 2 -i 0.05 -D 120 >>"$TMP/fsize.csv" 2>"$TMP/fsize.err"
) &
S=$!
SUPS+=("$S")
wait_for 90 gone $S
ok $? "with ulimit -f 16384 the run ends by itself once the log is full"
wait $S
rc=$?
check "with status 1 ($rc)" test "$rc" -eq 1
check "saying why: writing the log: File too large" grep -q "writing the log: File too large" "$TMP/fsize.err"
diag "$TMP/fsize.err"
check "every line of the log is whole ($(wc -c <"$TMP/fsize.csv") bytes)" lines_whole "$TMP/fsize.csv"
check "no worker or segment is left" test "$(workers_of $S)" -eq 0 -a "$(segments_of $S)" -eq 0
# ulimit -n: attached workers cost the supervisor no descriptor, so 6 workers run with 8.
(
	ulimit -n 8
	exec "$BIN" --headless -n 6 -s 100000 -l 1 -i 0.2 -o "$TMP/nofile.log" 2>"$TMP/nofile.err"
) &
S=$!
SUPS+=("$S")
wait_for 90 running "$TMP/nofile.log" 6
ok $? "with ulimit -n 8, 6 workers run"
check "nothing ran out of descriptors" ! grep -q "Too many open files" "$TMP/nofile.err"
quit $S
check "the supervisor ends with status 0" test $? -eq 0

# A full and a read-only /dev/shm (a private mount): the worker's failure carries the errno. The
# runs last until the log shows what is checked (a cold kernel cache may take seconds to build).
shm_script='mount -t tmpfs -o "$1" tmpfs /dev/shm && shift && exec "$@"'
shm_ns() { unshare -rm sh -c "$shm_script" sh "$@"; }
# The same in the background: the function's subshell becomes the command (exec all the way), so
# $! is the supervisor's pid and stopping it stops the run, not a shell that leaves it running.
shm_ns_bg() { exec unshare -rm sh -c "$shm_script" sh "$@"; }
has() { grep -q "$2" "$1" 2>/dev/null; }
if shm_ns size=300k true 2>/dev/null; then
	shm_ns_bg size=300k "$BIN" --headless -n 2 "${W[@]}" -D 120 -f jsonl -o "$TMP/full.log" 2>"$TMP/full.err" &
	S=$!
	SUPS+=("$S")
	wait_for 90 has "$TMP/full.log" '"state":"running"'
	ok $? "a full /dev/shm: one worker runs"
	wait_for 90 has "$TMP/full.log" '"state":"failed",.*"error":"could not create its shared-memory segment: No space left on device"'
	ok $? "the other is failed: No space left on device"
	quit $S
	check "and so on stderr" grep -q "failed: could not create its shared-memory segment: No space left on device" "$TMP/full.err"
	# The supervisor reserves each segment's name before it starts the worker: here it cannot.
	shm_ns ro,size=300k "$BIN" --headless -n 1 "${W[@]}" -D 120 -f jsonl -o "$TMP/ro.log" 2>"$TMP/ro.err"
	ok $([ $? -eq 1 ]; echo $?) "a read-only /dev/shm: the run ends with status 1"
	check "... saying why: Read-only file system" grep -q "cannot reserve its segment .*: Read-only file system" "$TMP/ro.err"
else
	for i in 1 2 3 4 5; do echo "ok $((TAP_N += 1)) # skip no private mount of /dev/shm (unshare -rm)"; done
fi

# ulimit -v: the OpenCL runtime cannot be mapped. Said so, status 1, nothing started. (The
# sanitizers reserve far more address space than the limit: not under them.)
if [ -n "${SANITIZER:-}" ]; then
	for i in 1 2 3; do echo "ok $((TAP_N += 1)) # skip ulimit -v under SANITIZER=$SANITIZER"; done
else
	(
		ulimit -v 100000
		exec "$BIN" --headless -n 1 "${W[@]}" -D 1 -o "$TMP/vmem.csv" 2>"$TMP/vmem.err"
	)
	check "with ulimit -v 100000 the run ends with status 1" test $? -eq 1
	check "saying that the OpenCL runtime failed to load, and why" grep -q "the OpenCL runtime failed to load (clGetPlatformIDs: CL_PLATFORM_NOT_FOUND_KHR): ." "$TMP/vmem.err"
	diag "$TMP/vmem.err"
	check "on one line, before any log" test "$(wc -l <"$TMP/vmem.err")" -eq 1 -a ! -e "$TMP/vmem.csv"
fi

# ---- the kernel is built once at start: a source that cannot work starts nothing ----
kernel_case() { # kernel_case WHAT WANT: decode.cl in $TMP/k is set up; WANT names the problem
	"$BIN" --headless -n 2 "${W[@]}" -D 1 -o "$TMP/k.csv" 2>"$TMP/k.err" &
	local pid=$!
	wait $pid
	local rc=$?
	local why=""
	[ $rc -eq 1 ] || why="exit status $rc"
	[ "$(wc -l <"$TMP/k.err")" -eq 1 ] || why="$why; $(wc -l <"$TMP/k.err") lines on stderr"
	grep -qF -- "$2" "$TMP/k.err" || why="$why; stderr does not name '$2'"
	[ ! -e "$TMP/k.csv" ] || why="$why; a log was written"
	[ "$(segments_of $pid)" -eq 0 ] || why="$why; a segment was made"
	ok $([ -z "$why" ] && echo 0 || echo 1) "$1: status 1 before any worker, naming '$2'"
	[ -n "$why" ] && echo "# ${why#; }" && diag "$TMP/k.err"
	rm -rf "$TMP/k" "$TMP/k.csv"
	return 0
}
export GPUTOP_DECODE_KERNELS="$TMP/k"
mkdir -p "$TMP/k" && : >"$TMP/k/decode.cl"
kernel_case "an empty decode.cl" "kernel source $TMP/k/decode.cl: empty"
mkdir -p "$TMP/k/decode.cl"
kernel_case "a directory named decode.cl" "kernel source $TMP/k/decode.cl: Is a directory"
mkdir -p "$TMP/k" && { cat "$ROOT/kernels/decode.cl" && echo 'this is not OpenCL C;'; } >"$TMP/k/decode.cl"
kernel_case "a kernel that does not build" "does not build on"
check "its build log is in the message" grep -q "clBuildProgram: CL_BUILD_PROGRAM_FAILURE: .*this" "$TMP/k.err"
mkdir -p "$TMP/k" && { cat "$ROOT/kernels/decode.cl" && echo 'this is not OpenCL C;'; } >"$TMP/k/decode.cl"
mkdir -p "$TMP/k" && sed 's/void decode(/void other(/' "$ROOT/kernels/decode.cl" >"$TMP/k/decode.cl"
kernel_case "a source without the decode kernel" "clCreateKernel(decode): CL_INVALID_KERNEL_NAME"
unset GPUTOP_DECODE_KERNELS

left=0
for s in "${SUPS[@]}"; do left=$((left + $(segments_of $s) + $(workers_of $s))); done
check "no segment or worker of any run is left" test $left -eq 0
