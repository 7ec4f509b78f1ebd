#!/usr/bin/env bash
# test_observe_selfprof.sh: a program that profiles its own queue is read directly, and one whose
# queue the library profiles cannot tell. cl_selfprof (its own events or none, the 1.2 and the 2.0
# way of asking, in order and out of order) runs alone and observed under --profile full, sampled
# and off: what the API tells it (queue properties, an event's reference count, the profiling
# answer on its queue without profiling) and its results are the same; launches, batches and
# bytes are exactly its own; the kernel time the log shows (the windows' kernel_busy x window_s)
# is within 5% of the time its own events give under full and sampled (every batch of its queue
# is read) and never above its wall time; the trace holds every kernel of its profiling queue
# under every policy, and under off none of the queue it made without profiling. A PyOpenCL
# program with PROFILING_ENABLE does the same, and event.profile fails on its other queue as it
# does alone. Nothing is left behind.
# tier: device, about 45 s
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
SP="$FIXTURES/cl_selfprof" # make fixtures
check "the C test program is built" test -x "$SP"

device_from_here

# B batches of L launches (with the probes, B + 2 batches and B x L + 2 launches), each much
# shorter than a window: a window in which no batch completes shows no kernel_busy.
B=60
L=4

# alone NAME CMD...: the program's output, unobserved, in $TMP/NAME.alone.
alone() {
	local name=$1
	shift
	"$@" >"$TMP/$name.alone" 2>&1
	ok $? "$name alone: the program succeeds"
}
# observed NAME PROFILE VIA CMD...: a headless run with a JSONL log and a trace; the program's
# output (its lines, their row prefix removed) in $TMP/NAME-PROFILE.out. Sets RUN to NAME-PROFILE.
observed() {
	local name=$1 prof=$2 via=$3
	shift 3
	RUN=$name-$prof
	"$BIN" --headless -f jsonl -o "$TMP/$RUN.log" -i 0.2 --profile "$prof" --observe-via "$via" \
		--trace "$TMP/$RUN.trace" -- "$@" 2>"$TMP/$RUN.err" &
	local sup=$!
	wait $sup
	ok $? "$RUN: the run ends with the program"
	sed -n 's/^\[1\] //p' "$TMP/$RUN.err" >"$TMP/$RUN.out"
	check "$RUN: no segment, no process left" test "$(segments_of $sup)" -eq 0 -a "$(children_of $sup)" -eq 0
}
# measure RUN: one line of what the run's log and trace say against the program's own truth:
#   counts-equal log-ratio tool-kernel-s truth-kernel-s wall-s trace-ratio trace-kernels
# The trace has a kernel slice per launch on an in-order queue; on an out-of-order one, one per
# run of kernels that overlapped. Where the program timed every launch, both ratios are against
# its own kernel time (the union of its intervals). Where it timed half (null), the trace's
# ratio is that of the trace's kernels at the places it timed (the batches of L kernels in
# order, the odd places in even batches and the even ones in odd batches, as it did) against its
# own, and the log's is against the whole trace: the launches it did not time have no other
# measure.
measure() {
	"$PY" - "$TMP/$1.log" "$TMP/$1.trace" "$TMP/$1.out" $L <<'PYEOF'
import json, math, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
L = int(sys.argv[4])
window = {r["t_s"]: r["window_s"] for r in rows if r["kind"] == "aggregate"}
kernel_s, last = 0.0, None
for r in rows:
    if r["kind"] == "worker" and r.get("pid"):
        kb = r.get("kernel_busy")
        if isinstance(kb, (int, float)) and not math.isnan(kb):
            kernel_s += kb * window[r["t_s"]]
        last = r
truth = dict(re.findall(r"(\w+)=([0-9.]+)", [l for l in open(sys.argv[3]) if l.startswith("truth:")][0]))
same = all(int(last[k]) == int(truth[k]) for k in ("launches", "batches", "h2d_bytes", "d2h_bytes"))
want = float(truth["kernel_union_ns"]) / 1e9
trace = [e for e in json.load(open(sys.argv[2])) if e.get("ph") == "X" and e.get("name") == "kernel"]
trace_s = sum(e["dur"] for e in trace) / 1e6
all_timed = int(truth["timed"]) >= int(truth["launches"]) - 2 # the probes are not timed
if all_timed:
    log_ratio, trace_ratio = kernel_s / want, trace_s / want
else:
    groups = {}
    for e in trace:
        groups.setdefault(e["args"]["batch"], []).append(e)
    loop = sorted((g for g in groups.values() if len(g) == L), key=lambda g: min(e["ts"] for e in g))
    timed = sum(e["dur"] for b, g in enumerate(loop)
                for l, e in enumerate(sorted(g, key=lambda e: e["ts"])) if l % 2 == b % 2) / 1e6
    log_ratio, trace_ratio = kernel_s / trace_s, timed / want
print(same, round(log_ratio, 4), round(kernel_s, 4), round(want, 4), round(float(truth["wall_ns"]) / 1e9, 4),
      round(trace_ratio, 4), len(trace))
PYEOF
}
# same_api NAME RUN: the API's answers and the results, observed as alone.
same_api() {
	check "$2: the API's answers and the results are the program's own" \
		cmp <(grep -E '^(api|result):' "$TMP/$1.alone") <(grep -E '^(api|result):' "$TMP/$2.out")
}
# within M WORD LO HI: the measure line M's WORDth word (from 0) in [LO, HI].
within() { "$PY" -c "import sys; r = float(sys.argv[1].split()[$2]); sys.exit(not $3 <= r <= $4)" "$1"; }
# not_above_wall M: the tool's kernel seconds no more than the program's wall time.
not_above_wall() { "$PY" -c "import sys; w = sys.argv[1].split(); sys.exit(not float(w[2]) <= float(w[4]))" "$1"; }

# One variant: alone, then observed under each policy (its own events, or none: the library's)
# and through one path (VIA). ORDER in: every kernel is a slice of the trace; ooo: overlapping
# kernels make one.
variant() {
	local name=$1 order=$2 via=$3
	shift 3
	local args=("$@")
	alone "$name" "$SP" "${args[@]}"
	check "$name alone: its queue without profiling answers CL_PROFILING_INFO_NOT_AVAILABLE" \
		grep -q "profiling_info=0,-7" "$TMP/$name.alone"
	for prof in full sampled off; do
		observed "$name" $prof "$via" "$SP" "${args[@]}"
		same_api "$name" "$RUN"
		local m
		m=$(measure "$RUN")
		echo "$m" | diag
		check "$RUN: launches, batches and bytes exactly the program's" test "${m%% *}" = True
		check "$RUN: the kernel time never above the program's wall time" not_above_wall "$m"
		# Every kernel of the profiling queue is in the trace, under every policy; the other
		# queue's probe only where the library profiles it (full, and sampled's first batch of
		# each queue), not under off.
		local want=$((B * L + 2))
		[ $prof = off ] && want=$((B * L + 1))
		if [ "$order" = in ]; then
			check "$RUN: the trace holds $want kernels (${m##* })" test "${m##* }" -eq $want
		else
			check "$RUN: the trace holds at most $want kernel slices (${m##* })" test "${m##* }" -le $want
		fi
		check "$RUN: the trace's kernel time within 5% of the program's own" within "$m" 5 0.95 1.05
		if [ $prof != off ]; then
			check "$RUN: the log's kernel time within 5% of the program's own (or the trace's)" \
				within "$m" 1 0.95 1.05
		fi
	done
}

variant own12 in layer $B $L own 12 in
variant null20 in preload $B $L null 20 in
variant own20ooo ooo both $B $L own 20 ooo
# Out of order without events of its own: the program cannot know how its untimed half overlapped,
# so its kernel time is no measure; counts, answers and the wall time still are.
alone null12ooo "$SP" $B $L null 12 ooo
observed null12ooo full both "$SP" $B $L null 12 ooo
same_api null12ooo "$RUN"
m=$(measure "$RUN")
echo "$m" | diag
check "$RUN: launches, batches and bytes exactly the program's" test "${m%% *}" = True
check "$RUN: the kernel time never above the program's wall time" not_above_wall "$m"

# PyOpenCL: a queue with PROFILING_ENABLE, its kernels' time from event.profile, and a queue
# without, on which event.profile fails alone and observed alike.
cat >"$TMP/selfprof.py" <<'PYEOF'
import sys
import time
import numpy as np
import pyopencl as cl
B, L, N = int(sys.argv[1]), int(sys.argv[2]), 8192
t0 = time.monotonic_ns()
ctx = cl.Context(devices=[cl.get_platforms()[0].get_devices()[0]])
qp = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
qn = cl.CommandQueue(ctx)
prg = cl.Program(ctx, """kernel void spin(global const float *x, global float *y, int n) {
    size_t i = get_global_id(0); float v = x[i];
    for (int k = 0; k < n; k++) v = v * 0.999f + 0.5f;
    y[i] = v; }""").build()
mf = cl.mem_flags
x = cl.Buffer(ctx, mf.READ_WRITE, N * 4)
y = cl.Buffer(ctx, mf.READ_WRITE, N * 4)
ev = prg.spin(qn, (1,), None, x, y, np.int32(0))
ev.wait()
try:
    ev.profile.start
    answer = "available"
except cl.RuntimeError as e:
    answer = "error %s" % e.code
print("api: props=%d,%d profile=%s" % (qp.properties, qn.properties, answer))
kernel_ns, check = 0, 0.0
for b in range(B):
    host = (np.arange(N) % 89 + b).astype(np.float32)
    cl.enqueue_copy(qp, x, host)
    evs = [prg.spin(qp, (N,), None, x, y, np.int32(100)) for _ in range(L)]
    qp.finish()
    kernel_ns += sum(e.profile.end - e.profile.start for e in evs)
    cl.enqueue_copy(qp, host, y)
    check += float(host.astype(np.float64).sum())
print("result: checksum=%.3f" % check)
print("truth: launches=%d batches=%d h2d_bytes=%d d2h_bytes=%d timed=%d kernel_union_ns=%d wall_ns=%d"
      % (B * L + 1, B + 1, B * N * 4, B * N * 4, B * L, kernel_ns, time.monotonic_ns() - t0))
PYEOF
alone py "$PY" "$TMP/selfprof.py" $B $L
check "py alone: event.profile fails on the queue without profiling" grep -q "profile=error -7" "$TMP/py.alone"
for prof in full sampled; do
	observed py $prof both "$PY" "$TMP/selfprof.py" $B $L
	same_api py "$RUN"
	m=$(measure "$RUN")
	echo "$m" | diag
	check "$RUN: launches, batches and bytes exactly the program's" test "${m%% *}" = True
	check "$RUN: the log's kernel time within 5% of the program's own" within "$m" 1 0.95 1.05
done
