#!/usr/bin/env bash
# test_user_kernel.sh: --kernel FILE on the real OpenCL device: each shipped example in each
# mode counts items, in Mitem/s, and names its kernel in the log; a sweep, the calibration and
# the trace work with it; a build error shows the log with the file's line numbers (status 1);
# arguments that cannot be set up, a missing value, several kernels without --kernel-name and
# --verify are refused (status 2), naming what to pass, before anything starts.
# tier: fast, about 30 s
. "$(dirname "$0")/lib.sh"
EX="$ROOT/kernels/examples"

# refused CODE PATTERN FILE ARGS...: exits with CODE, says PATTERN, and nothing started (the
# log, opened last, was never created).
refused() {
	local code=$1 pat=$2 file=$3
	shift 3
	rm -f "$TMP/no.csv"
	"$BIN" --headless --kernel "$file" -n 1 -s 100 -D 1 -o "$TMP/no.csv" "$@" 2>"$TMP/no.err"
	local rc=$?
	grep -q -- "$pat" "$TMP/no.err" && [ "$rc" -eq "$code" ] && [ ! -e "$TMP/no.csv" ]
}

check "--verify has no CPU check for a user kernel: status 2" refused 2 "--verify: has no CPU check" "$EX/gather.cl" --verify
check "a missing file: status 2" refused 2 "--kernel: $TMP/none.cl: No such file" "$TMP/none.cl"

device_from_here
printf 'kernel void k(global float *out)\n{\n\tout[0] = 1.0f +;\n}\n' >"$TMP/bad.cl"
check "a syntax error: status 1 and the build log at the file's line" refused 1 "$TMP/bad.cl:3:[0-9]*: .*expected" "$TMP/bad.cl"
diag "$TMP/no.err"
printf 'kernel void k(read_only image2d_t img, global float *o) { o[0] = 1; }\n' >"$TMP/img.cl"
check "an image argument: status 2, named" refused 2 "argument 'img' (image2d_t).*global buffer" "$TMP/img.cl"
printf 'typedef struct { float a, b; } pair;\nkernel void k(pair p, global float *o) { o[0] = p.a; }\n' >"$TMP/struct.cl"
check "a struct argument: status 2, named" refused 2 "argument 'p' (pair).*struct" "$TMP/struct.cl"
check "a scalar without a value: status 2, says what to pass" refused 2 "argument 'a' (float): no value: pass --arg a=VALUE" "$EX/saxpy.cl"
check "an --arg that names no argument: status 2" refused 2 "--arg b: the kernel has no argument of that name (its arguments: x, y, a, n)" "$EX/saxpy.cl" --arg a=1 --arg b=2
printf 'kernel void first(global float *o) { o[0] = 1; }\nkernel void second(global float *o) { o[0] = 2; }\n' >"$TMP/two.cl"
check "several kernels without --kernel-name: status 2, listing them" refused 2 "has 2 kernels (first, second): choose one with --kernel-name" "$TMP/two.cl"
check "a --kernel-name that is not there: status 2, listing them" refused 2 "no kernel 'third' (its kernels: first, second)" "$TMP/two.cl" --kernel-name third

# run EXAMPLE MODE [ARGS...]: one worker, small sizes, a JSONL log in $TMP/run.jsonl, until
# a window has a rate above zero (however slow the machine), then stopped with SIGTERM.
run() {
	local ex=$1 mode=$2
	shift 2
	rm -f "$TMP/run.jsonl" # never the previous run's rows
	"$BIN" --headless --kernel "$EX/$ex.cl" -m "$mode" -n 1 -s 3000 -l 2 -i 0.3 -f jsonl \
		-o "$TMP/run.jsonl" "$@" 2>"$TMP/run.err" &
	local pid=$!
	wait_for 90 grep -sqE '"kind":"aggregate".*"mbit_s":([1-9]|0\.0*[1-9])' "$TMP/run.jsonl"
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
}

# The log parses, the worker never failed and counted items, and every aggregate row names the
# kernel and the unit.
items_logged() {
	python3 - "$TMP/run.jsonl" "$1" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
workers = [r for r in rows if r["kind"] == "worker"]
aggs = [r for r in rows if r["kind"] == "aggregate"]
assert workers and all(r["state"] != "failed" for r in workers), workers[-1:]
last = workers[-1]
# Items are counted per launch: size x launches per batch (batches and items are two totals,
# read apart, so one batch may stand between them).
per = 3000 * 2
assert last["batches"] > 0 and last["symbols"] % per == 0, last
assert abs(last["symbols"] - last["batches"] * per) <= per, last
assert aggs and all(a["kernel"] == sys.argv[2] and a["rate_unit"] == "Mitem/s" for a in aggs), aggs[-1]
assert any(a.get("mbit_s", 0) > 0 for a in aggs), aggs
PY
}

for mode in seed pipelined kernel-only; do
	run gather "$mode"
	rc=$?
	items_logged gather 2>"$TMP/why"
	ok $((rc | $?)) "gather, $mode: items counted (size x launches per batch), Mitem/s, kernel named"
	diag "$TMP/why"
	run saxpy "$mode" --arg a=2
	rc=$?
	items_logged saxpy 2>"$TMP/why"
	ok $((rc | $?)) "saxpy, $mode: the same, with --arg a=2"
	diag "$TMP/why"
	run compute "$mode" --build-options "-DITERS=16"
	rc=$?
	items_logged compute 2>"$TMP/why"
	ok $((rc | $?)) "compute, $mode: the same, with --build-options"
	diag "$TMP/why"
done
grep -q "kernel compute of $EX/compute.cl, rates in Mitem/s; arguments: out: out float\[N\], n: uint=N" "$TMP/run.err"
ok $? "the start line says which kernel runs and how its arguments are set up"
diag "$TMP/run.err"

# A sweep over processes and queues, with the calibration and a trace.
"$BIN" --kernel "$EX/saxpy.cl" --arg a=2 -m kernel-only -s 3000 -l 2 -i 0.3 -D 0.6 --sweep 1,1x2 \
	--calibrate --trace "$TMP/t.json" >"$TMP/sweep.txt" 2>"$TMP/sweep.err"
check "a sweep of a user kernel with --calibrate and --trace ends well" test $? -eq 0
check "its table is in Mitem/s and names the kernel" grep -q "^kernel saxpy of .*procs.*" <(tr '\n' ' ' <"$TMP/sweep.txt")
check "  (the unit in the header)" grep -q "queues    Mitem/s" "$TMP/sweep.txt"
check "  and the ceiling, not scaled to 4x: a user kernel's arguments are planned for its size" \
	grep -qE "^ceiling: [0-9.]+ Mitem/s at this size$" "$TMP/sweep.txt"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(e.get("ph")=="X" and e["name"]=="kernel" for e in d)' "$TMP/t.json"
ok $? "the trace parses and holds intervals"

"$BIN" --headless --kernel "$TMP/two.cl" --kernel-name second -n 1 -s 100 -l 1 -i 0.3 -D 0.6 -f jsonl -o "$TMP/second.jsonl" 2>/dev/null
check "--kernel-name picks one of several" grep -q '"kernel":"second"' "$TMP/second.jsonl"
