#!/usr/bin/env bash
# test_kernel.sh: the decode kernel on the real OpenCL device equals the double-precision CPU
# reference (--verify) for f32 and f64 in every mode, and the check does catch a wrong kernel.
# tier: device, about 10 s
. "$(dirname "$0")/lib.sh"

# verify DTYPE MODE: one worker with --verify until it has decoded a few batches (3), or failed
# (bounded), then SIGINT; its status in RC.
verify() {
	rm -f "$TMP/v.jsonl"
	"$BIN" --headless --verify -t "$1" -m "$2" -n 1 -s 30000 -l 3 -i 0.3 -f jsonl \
		-o "$TMP/v.jsonl" 2>"$TMP/v.err" &
	stop_when 120 $! eval 'batches_reach 3 "$TMP/v.jsonl" || grep -qs "\"state\":\"failed\"" "$TMP/v.jsonl"'
}

for dtype in f32 f64; do
	for mode in seed pipelined kernel-only; do
		verify "$dtype" "$mode"
		rc=$RC
		python3 - "$TMP/v.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
workers = [r for r in rows if r["kind"] == "worker"]
assert workers and all(r["state"] != "failed" for r in workers), workers[-1:]
assert workers[-1]["batches"] > 0, workers[-1]
PY
		ok $((rc | $?)) "$dtype $mode: the device output matches the CPU reference"
		[ -s "$TMP/v.err" ] && diag "$TMP/v.err"
	done
done

# A kernel that runs 8 permutation steps instead of 9 must fail --verify, with a clear message.
mkdir -p "$TMP/kernels"
sed 's/i < 9/i < 8/' "$ROOT/kernels/decode.cl" >"$TMP/kernels/decode.cl"
check "the altered kernel differs from the real one" ! cmp -s "$ROOT/kernels/decode.cl" "$TMP/kernels/decode.cl"
GPUTOP_DECODE_KERNELS="$TMP/kernels" verify f64 seed
grep -q 'failed: --verify: relative error' "$TMP/v.err"
ok $? "--verify rejects a wrong kernel and says why"
diag "$TMP/v.err"
check "the failing worker is logged as failed" grep -q '"state":"failed"' "$TMP/v.jsonl"

# Without --verify the same wrong kernel runs: the check is what caught it (3 batches decoded).
GPUTOP_DECODE_KERNELS="$TMP/kernels" "$BIN" --headless -n 1 -s 30000 -l 3 -i 0.3 -f jsonl -o "$TMP/nv.jsonl" &
stop_when 120 $! batches_reach 3 "$TMP/nv.jsonl"
check "without --verify the wrong kernel is not flagged" eval \
	'batches_reach 3 "$TMP/nv.jsonl" && ! grep -q "\"state\":\"failed\"" "$TMP/nv.jsonl"'

# No kernel source where it is looked for: nothing starts, and the error says where it looked.
GPUTOP_DECODE_KERNELS="$TMP/nowhere" "$BIN" --headless -n 1 -i 0.2 -D 1 -o "$TMP/missing.csv" 2>"$TMP/missing.err"
check "a missing kernel source ends the run with status 1" test $? -eq 1
check "the error names the directory looked in" grep -q "kernel source decode.cl not found in $TMP/nowhere" "$TMP/missing.err"
check "the error is one line" test "$(wc -l <"$TMP/missing.err")" -eq 1
check "no log was written: nothing started" test ! -s "$TMP/missing.csv"
