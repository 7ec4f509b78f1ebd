#!/usr/bin/env bash
# test_observe_patterns.sh: programs written the ways real ones use OpenCL (cl_patterns, in C and
# PyOpenCL: many launches a batch, kernels longer than a window, a warm-up batch, polling and
# callbacks instead of host waits, copies and fills, tasks and native kernels, maps and SVM,
# images) run alone and observed under --profile full and sampled, with their queue profiled by
# themselves (--own-profiling) and not. Each prints its own truth; the observed run must leave it
# unchanged (the results' checksum, the API's answers) and the log's last row of the process must
# count it exactly (launches, items, bytes each way, waits; commands and copy bytes where the log
# has them), with kernel, transfer and copy time within 5% of the program's own where the program
# profiled itself (its queue is read every batch under either policy). Then the estimate against
# that truth: the programs that profile themselves observed with --sample-every 4, which reads one
# batch in 4 of their queue and estimates the rest, over 40 batches or more: kernel, transfer and
# copy time within 15%. A field the log lacks yet is a SKIP, so the checks tighten as the recorder
# grows.
# tier: device, about 130 s
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
CP="$FIXTURES/cl_patterns" # make fixtures
PP="$ROOT/tests/fixtures/cl_patterns.py"
CHECK="$ROOT/tests/integration/check_patterns.py"
check "the C test program is built" test -x "$CP"

device_from_here

# Small sizes: every mode in a second or two on two cores, yet each still its pattern (long's
# kernels outlast the 0.25 s windows; copyfill copies far more than it computes).
declare -A ARGS=(
	[many]="-b 3 -n 1000" [long]="--ms 300 -n 2" [short]="-n 5" [poll]="-n 4" [callback]="-n 4"
	[copyfill]="-b 8 --mib 4" [tasks]="" [maps]="-b 3" [images]=""
)
C_MODES="many long short poll callback copyfill tasks maps images"
PY_MODES="many long short poll callback copyfill maps"
# --sample-every 4: the modes of many batches, 40 or more each, three in four of them estimated
declare -A EVERY_ARGS=(
	[many]="-b 40 -n 100" [short]="-b 80 -n 2" [poll]="-b 40 -n 2" [callback]="-b 80 -n 2"
	[copyfill]="-b 40 --mib 4" [maps]="-b 40"
)
EVERY_C="many short poll callback copyfill maps"
EVERY_PY="short callback copyfill"

# pair NAME CMD...: the program alone (its output in $TMP/NAME.alone), then observed, logged to
# $TMP/NAME.log (the supervisor's standard error, the program's output in it, in $TMP/NAME.err);
# $TMP/NAME.rc holds both exit statuses, the segments left behind and both runs' seconds. NAME's
# suffix is the policy: full, sampled, or everyN (sampled with --sample-every N).
pair() {
	local name=$1 prof=(--profile "${1##*.}") t0=$EPOCHREALTIME
	[[ ${1##*.} == every* ]] && prof=(--profile sampled --sample-every "${1##*.every}")
	shift
	"$@" >"$TMP/$name.alone" 2>&1
	local rc_alone=$? t1=$EPOCHREALTIME
	"$BIN" --headless "${prof[@]}" -i 0.25 -f jsonl -o "$TMP/$name.log" -- "$@" 2>"$TMP/$name.err" &
	local sup=$!
	wait $sup
	local rc_seen=$?
	echo "$rc_alone $rc_seen $(segments_of $sup) $(elapsed "$t0" "$t1") $(elapsed "$t1" "$EPOCHREALTIME")" \
		>"$TMP/$name.rc"
}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# Every pair in the background, three at a time: most of a run is start-up and host work.
NAMES=()
spawn() {
	while [ "$(jobs -rp | wc -l)" -ge 3 ]; do
		wait -n
	done
	NAMES+=("$1")
	pair "$@" &
}
# NAME: c-MODE or py-MODE, -own where the program profiles itself, then .POLICY
for prof in full sampled; do
	for own in "" --own-profiling; do
		tag=${own:+-own}
		for m in $C_MODES; do
			# shellcheck disable=SC2086 # the mode's arguments are words
			spawn "c-$m$tag.$prof" "$CP" $m ${ARGS[$m]} $own
		done
		for m in $PY_MODES; do
			# shellcheck disable=SC2086
			spawn "py-$m$tag.$prof" "$PY" "$PP" $m ${ARGS[$m]} $own
		done
	done
done
for m in $EVERY_C; do
	# shellcheck disable=SC2086
	spawn "c-$m-own.every4" "$CP" $m ${EVERY_ARGS[$m]} --own-profiling
done
for m in $EVERY_PY; do
	# shellcheck disable=SC2086
	spawn "py-$m-own.every4" "$PY" "$PP" $m ${EVERY_ARGS[$m]} --own-profiling
done
wait

skip() { # skip DESCRIPTION: a TAP check that cannot run yet
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N # SKIP $1"
}
for name in "${NAMES[@]}"; do
	read -r rc_alone rc_seen segs secs_alone secs_seen <"$TMP/$name.rc"
	echo "$name: $secs_alone s alone, $secs_seen s observed" | diag
	ok "$rc_alone" "$name alone: the program succeeds"
	ok "$rc_seen" "$name observed: the run ends with the program"
	check "$name observed: no segment left" test "$segs" -eq 0
	times=()
	[ "${name%-own.*}" != "$name" ] && times=(--times)
	[[ $name == *.every* ]] && times+=(--every "${name##*.every}")
	while read -r verdict line; do
		case $verdict in
		PASS) ok 0 "$line" ;;
		FAIL) ok 1 "$line" ;;
		SKIP) skip "$line" ;;
		*) echo "$line" | diag ;;
		esac
	done < <("$PY" "$CHECK" "$name" "$TMP/$name.alone" "$TMP/$name.err" "$TMP/$name.log" "${times[@]}")
done
