#!/usr/bin/env bash
# run.sh: runs each test (a unit binary or an integration script) in its own process with a
# timeout, reads their TAP lines, and ends with one summary line "N passed, N failed".
# A test that exits non-zero, times out or prints no result counts as one failure.
set -u
cd "$(dirname "$0")/.."
TIMEOUT=${TEST_TIMEOUT:-600}
passed=0 failed=0
failures=()
logdir=$(mktemp -d /tmp/gputop-decode-tests.XXXXXX)
for t in "$@"; do
	name=$(basename "$t")
	log="$logdir/$name.log"
	start=$(date +%s)
	if [[ $t == *.sh ]]; then
		timeout -k 10 "$TIMEOUT" bash "$t" >"$log" 2>&1
	else
		timeout -k 10 "$TIMEOUT" "$t" >"$log" 2>&1
	fi
	rc=$?
	ok=$(grep -c '^ok ' "$log")
	nok=$(grep -c '^not ok ' "$log")
	passed=$((passed + ok))
	failed=$((failed + nok))
	status="ok"
	if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
		failed=$((failed + 1))
		status="exit $rc$([ "$rc" -eq 124 ] && echo ' (timeout)')"
	elif [ "$ok" -eq 0 ] && [ "$nok" -eq 0 ]; then
		failed=$((failed + 1))
		status="no result"
	elif [ "$nok" -gt 0 ]; then
		status="$nok failed"
	fi
	printf '%-32s %4d ok %3d failed  %4ss  %s\n' "$name" "$ok" "$nok" "$(($(date +%s) - start))" "$status"
	if [ "$status" != ok ]; then
		failures+=("$name")
		grep -E '^(not ok|#)' "$log" | head -40 | sed 's/^/    /'
		[ "$nok" -eq 0 ] && tail -n 20 "$log" | sed 's/^/    | /'
	fi
done
rm -rf "$logdir"
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
