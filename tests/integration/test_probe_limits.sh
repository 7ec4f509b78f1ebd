#!/usr/bin/env bash
# test_probe_limits.sh: what the device probe finds before anything starts. A --kernel whose
# local memory (its own __local arrays, and the local arguments --arg sizes) is more than the
# device's is refused with status 2 and one line naming the kernel and both sizes, with no
# worker, segment or log; the boundary itself runs. Under a descriptor limit too low for the
# OpenCL runtime the run says so (status 1, one line, "too many open files (ulimit -n N)"),
# never that no platform is installed, at every limit below the first that starts.
# tier: device, about 10 s
. "$(dirname "$0")/lib.sh"
W=(-n 1 -s 1024 -l 1 -i 0.2)

cleanup() {
	stop_started
	tap_cleanup
}
on_exit cleanup

# refused NAME ARGS...: a headless run that should be refused at start, in the background with
# its pid as $SUP (for segments_of and workers_of), and, where strace exists, every program it
# executed in $TMP/NAME.exec. Sets RC.
refused() {
	local name=$1
	shift
	# strace is left out under the sanitizers: LeakSanitizer cannot run in a traced process.
	if [ -z "${SANITIZER:-}" ] && command -v strace >/dev/null; then
		strace -f -qq -e trace=execve -o "$TMP/$name.exec" \
			"$BIN" --headless "${W[@]}" -D 2 -o "$TMP/$name.log" "$@" 2>"$TMP/$name.err" &
	else
		"$BIN" --headless "${W[@]}" -D 2 -o "$TMP/$name.log" "$@" 2>"$TMP/$name.err" &
	fi
	SUP=$!
	SUPS+=("$SUP")
	wait $SUP
	RC=$?
}

# nothing_started NAME: no log, no segment, no worker, and (with strace) no program executed
# but the tool itself: the probe is a fork, a worker would be an exec.
nothing_started() {
	check "$1: no log file" test ! -e "$TMP/$1.log"
	check "$1: no segment and no worker of the run" test "$(segments_of $SUP)" -eq 0 -a "$(workers_of $SUP)" -eq 0
	if [ -s "$TMP/$1.exec" ]; then
		check "$1: no worker was ever spawned (one execve: the tool's own)" \
			test "$(grep -c 'execve(' "$TMP/$1.exec")" -eq 1
	else
		echo "ok $((TAP_N += 1)) # skip $1: no strace to count what was executed"
	fi
}

device_from_here

# ---- local memory ----
# A __local array of 64 MiB: more than any device's local memory.
cat >"$TMP/big.cl" <<'EOF'
__kernel void big(__global float *out)
{
	__local float tile[16777216];
	int l = (int)get_local_id(0);
	tile[l] = (float)get_global_id(0);
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = tile[(l + 1) % (int)get_local_size(0)];
}
EOF
refused big --kernel "$TMP/big.cl"
check "a kernel with a 64 MiB __local array is refused with status 2 ($RC)" test "$RC" -eq 2
diag "$TMP/big.err"
check "on one line" test "$(wc -l <"$TMP/big.err")" -eq 1
check "naming the kernel and its local memory" \
	grep -q "big.cl, kernel big: local memory of 67108864 bytes (the kernel's own)" "$TMP/big.err"
DEV=$(sed -n "s/.*more than the device's \([0-9]*\) (CL_DEVICE_LOCAL_MEM_SIZE.*/\1/p" "$TMP/big.err")
check "and the device's (${DEV:-none}), which is less" test "${DEV:-67108864}" -lt 67108864
nothing_started big

# A small __local array of its own and a local argument: the sum is what counts. One byte over
# the device's is refused, naming both parts; exactly the device's runs.
cat >"$TMP/part.cl" <<'EOF'
__kernel void part(__global float *out, __local float *t)
{
	__local float own[1000];
	int l = (int)get_local_id(0);
	t[l] = (float)get_global_id(0);
	own[l % 1000] = t[l];
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = t[(l + 1) % (int)get_local_size(0)] + own[(l + 7) % 1000];
}
EOF
refused whole --kernel "$TMP/part.cl" --arg "t=${DEV:-1}"
OWN=$(sed -n "s/.* for the arguments, \([0-9]*\) the kernel's own.*/\1/p" "$TMP/whole.err")
check "a local argument as large as the device's local memory is refused ($RC), naming the kernel's own (${OWN:-none})" \
	test "$RC" -eq 2 -a -n "$OWN"
diag "$TMP/whole.err"
if [ -n "$OWN" ] && [ -n "$DEV" ]; then
	refused over --kernel "$TMP/part.cl" --arg "t=$((DEV - OWN + 1))"
	check "one byte over the device's ($((DEV - OWN + 1)) + $OWN): status 2 ($RC)" test "$RC" -eq 2
	check "one line with both parts and the total" \
		grep -q "local memory of $((DEV + 1)) bytes ($((DEV - OWN + 1)) for the arguments, $OWN the kernel's own) is more than the device's $DEV" "$TMP/over.err"
	nothing_started over
	"$BIN" --headless "${W[@]}" -D 1.5 -f jsonl -o "$TMP/fits.jsonl" --kernel "$TMP/part.cl" \
		--arg "t=$((DEV - OWN))" 2>"$TMP/fits.err"
	check "exactly the device's local memory runs (status $?)" test $? -eq 0
	python3 - "$TMP/fits.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
workers = [r for r in rows if r["kind"] == "worker"]
assert workers and all(r["state"] != "failed" for r in workers), workers[-1:]
assert workers[-1]["batches"] > 0, workers[-1]
PY
	ok $? "its worker ran batches and did not fail"
	diag "$TMP/fits.err"
else
	for i in 1 2 3 4 5 6; do echo "ok $((TAP_N += 1)) # skip the sizes were not found in the messages"; done
fi

# ---- descriptor limits ----
# Each limit from 3 up to the first under which the run starts (its log is opened only once the
# probe has answered): where the tool runs at all (below some limit the dynamic loader cannot
# open its own libraries: status 127), the run ends with status 1 and one line naming the limit.
# At some limit the ICD loader itself cannot open its files: that must read as the limit.
loader_seen=0
for n in $(seq 3 16); do
	(
		ulimit -n "$n"
		exec "$BIN" --headless "${W[@]}" -D 0.3 -o "$TMP/fd$n.csv"
	) 2>"$TMP/fd$n.err"
	rc=$?
	[ "$rc" -eq 127 ] && continue
	[ -e "$TMP/fd$n.csv" ] && break # the probe answered: the run started
	grep -q "cannot open the OpenCL runtime: too many open files (ulimit -n $n)" "$TMP/fd$n.err" && loader_seen=$n
	ok $([ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/fd$n.err")" -eq 1 ] &&
		grep -q "too many open files (ulimit -n $n)" "$TMP/fd$n.err"; echo $?) \
		"ulimit -n $n: status 1 ($rc), one line naming the limit ($(head -c 150 "$TMP/fd$n.err"))"
	check "ulimit -n $n: not 'no OpenCL platform is installed'" ! grep -q "no OpenCL platform" "$TMP/fd$n.err"
done
check "a limit at which the ICD loader cannot open its files was met (ulimit -n ${loader_seen:-none})" \
	test "$loader_seen" -gt 0
check "the run starts once the limit allows (ulimit -n $n)" test -e "$TMP/fd$n.csv"

# --list-devices loads the runtime itself: where it fails, it says why too.
for n in $(seq 3 16); do
	(
		ulimit -n "$n"
		exec "$BIN" --list-devices
	) >"$TMP/list$n.out" 2>"$TMP/list$n.err"
	rc=$?
	[ "$rc" -eq 127 ] && continue
	[ "$rc" -eq 0 ] && break
	ok $([ "$rc" -eq 1 ] && grep -q "no OpenCL device found: .*too many open files (ulimit -n $n)" "$TMP/list$n.err"; echo $?) \
		"--list-devices under ulimit -n $n: status 1 ($rc), naming the limit ($(head -c 150 "$TMP/list$n.err"))"
done
check "--list-devices lists the device once the limit allows (ulimit -n $n)" grep -q "^0:0 " "$TMP/list$n.out"
