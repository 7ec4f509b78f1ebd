#!/usr/bin/env bash
# run.sh [-j JOBS] [--tier fast] TEST...: runs each test (a unit binary or an integration script)
# in its own process with a timeout, JOBS at a time (default: $TEST_JOBS, else the number of
# cores), reads their TAP lines and prints one line per test, in the order given, then one
# summary line "N passed, N failed". A test that exits non-zero, times out or prints no result
# counts as one failure.
#
# Scripts start longest first: each integration script has a tag line near its head,
#   # tier: fast|device, about N s
# N being about the seconds it takes on the 2-core test machine beside another test (only the
# order of starts uses it; nothing waits on it). Each test gets a temporary directory of its own
# as TMPDIR, removed after it.
# --tier fast (make unit): only the scripts tagged fast, with GPUTOP_TEST_TIER=fast and no
# OpenCL platform visible (OCL_ICD_VENDORS names an empty directory), so that a check that needs
# the device cannot pass there by luck: lib.sh's with_device and device_from_here leave those
# checks out. Unit binaries run as they are in either tier.
set -u
cd "$(dirname "$0")/.."
TIMEOUT=${TEST_TIMEOUT:-600}
JOBS=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
TIER=full
while [ $# -gt 0 ]; do
	case $1 in
	-j) JOBS=$2 && shift 2 ;;
	-j*) JOBS=${1#-j} && shift ;;
	--tier) TIER=$2 && shift 2 ;;
	*) break ;;
	esac
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -j wants a positive number, not '$JOBS'" >&2; exit 2; }

# tag SCRIPT: "TIER SECONDS" from its tag line ("device 60" without one).
tag() {
	awk 'NR > 20 { exit } match($0, /^# tier: *[a-z]+/) {
		tier = $3; sub(/,$/, "", tier)
		if (match($0, /about *[0-9]+ *s/)) { secs = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", secs) }
		exit
	} END { print (tier == "" ? "device" : tier), (secs == "" ? 60 : secs) }' "$1"
}

tests=() costs=()
for t in "$@"; do
	if [[ $t == *.sh ]]; then
		read -r tier secs < <(tag "$t")
		[ "$TIER" = fast ] && [ "$tier" != fast ] && continue
	else
		secs=0
	fi
	tests+=("$t")
	costs+=("$secs")
done
n=${#tests[@]}

# Short names: a test's paths show on the dashboard's one-line messages (lib.sh makes its
# directory it.XXXXXX in the test's own, $logdir/N).
logdir=$(mktemp -d /tmp/gdt.XXXXXX)
chmod 711 "$logdir" # test_reliab.sh's other user reaches its own directory below it
mkdir "$logdir/no-icd"
cleanup() {
	local p
	for p in $(jobs -p); do # a test's timeout, which passes SIGTERM on to the test, then its subshell
		pkill -TERM -P "$p" 2>/dev/null
		kill -TERM "$p" 2>/dev/null
	done
	rm -rf "$logdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The order of starts: costs descending, then the order given.
mapfile -t order < <(for ((i = 0; i < n; i++)); do echo "${costs[i]} $i"; done | sort -k1,1nr -k2,2n | cut -d' ' -f2)

# launch I: test I in the background, in its own directory; its status and seconds land in
# $logdir/I.rc and I.secs.
launch() {
	local i=$1 t=${tests[$1]}
	local tmp="$logdir/$i"
	mkdir "$tmp" && chmod 711 "$tmp"
	(
		export TMPDIR="$tmp" GPUTOP_TEST_TMPDIR="$tmp"
		if [ "$TIER" = fast ] && [[ $t == *.sh ]]; then
			export GPUTOP_TEST_TIER=fast OCL_ICD_VENDORS="$logdir/no-icd"
			unset OCL_ICD_FILENAMES
		fi
		start=$SECONDS
		if [[ $t == *.sh ]]; then
			timeout -k 10 "$TIMEOUT" bash "$t" </dev/null >"$logdir/$i.log" 2>&1
		else
			timeout -k 10 "$TIMEOUT" "$t" </dev/null >"$logdir/$i.log" 2>&1
		fi
		rc=$?
		echo $((SECONDS - start)) >"$logdir/$i.secs"
		rm -rf "$tmp"
		echo $rc >"$logdir/$i.rc"
	) &
}

passed=0 failed=0
failures=()
# report I: the line of test I (and what failed in it); adds to the totals.
report() {
	local i=$1 t=${tests[$1]}
	local name log="$logdir/$i.log" rc ok nok status secs
	name=$(basename "$t")
	rc=$(cat "$logdir/$i.rc")
	secs=$(cat "$logdir/$i.secs")
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
	printf '%-32s %4d ok %3d failed  %4ss  %s\n' "$name" "$ok" "$nok" "$secs" "$status"
	if [ "$status" != ok ]; then
		failures+=("$name")
		# each failed check with the comment lines that follow it (its diagnosis)
		awk '/^not ok /{p = 1; print; next} /^ok /{p = 0} p && /^#/' "$log" | head -60 | sed 's/^/    /'
		[ "$nok" -eq 0 ] && tail -n 20 "$log" | sed 's/^/    | /'
	fi
}

next=0    # the next test of $order to start
printed=0 # tests reported so far, in the order given
while [ $printed -lt $n ]; do
	# Those started and not finished: an .rc file is the last thing a test's subshell writes.
	# (a glob: find would stat the test directories as they are removed)
	done_=$(compgen -G "$logdir/*.rc" | wc -l)
	while [ $((next - done_)) -lt "$JOBS" ] && [ $next -lt $n ]; do
		launch "${order[next]}"
		next=$((next + 1))
	done
	while [ $printed -lt $n ] && [ -e "$logdir/$printed.rc" ]; do
		report $printed
		printed=$((printed + 1))
	done
	[ $printed -lt $n ] || break
	if [ -z "$(jobs -rp)" ] && [ $next -ge $n ]; then # a test's subshell died before its .rc
		for ((i = printed; i < n; i++)); do
			[ -e "$logdir/$i.rc" ] || { echo 1 >"$logdir/$i.rc"; [ -e "$logdir/$i.secs" ] || echo 0 >"$logdir/$i.secs"; }
		done
		continue
	fi
	wait -n 2>/dev/null
done
wait
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
