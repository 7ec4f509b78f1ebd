# lib.sh: shared helpers of the integration tests (sourced). They print TAP lines.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN="$ROOT/gputop-decode"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:handle_sigbus=0:allow_user_segv_handler=1:abort_on_error=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$ROOT/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# PoCL caches compiled kernels here; a private cache keeps tests independent of the user's.
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-/tmp/gputop-decode-pocl-cache}"
TAP_N=0
TAP_FAILED=0
# The test's own directory: in the one tests/run.sh made for this script (also its TMPDIR), else
# in /tmp. Short names: the dashboard shows paths in it on one line of a 100-column terminal.
if [ -n "${GPUTOP_TEST_TMPDIR:-}" ]; then
	TMP=$(mktemp -d "$GPUTOP_TEST_TMPDIR/it.XXXXXX")
else
	TMP=$(mktemp -d /tmp/gputop-decode-it.XXXXXX)
fi
# The fixture programs (tests/fixtures/), built by `make fixtures` into the configuration's build.
FIXTURES="$ROOT/${BUILD:-build/plain}/fixtures"
# The dashboard's config file: the test's own, never the user's (a tmux server started later
# passes it on to its panes).
export XDG_CONFIG_HOME="$TMP/config"
# on_exit CMD: runs CMD when the script's own shell exits. A background subshell that a signal
# ends before it runs exec (a `sleep &` killed at once) would run a plain EXIT trap too, and
# remove the directory or the tmux server the script is still using.
on_exit() { trap "[ \"\$BASHPID\" = $$ ] && { $1; }" EXIT; }
on_exit tap_cleanup
# add_user NAME ARGS...: useradd, tried again while another script holds the lock on /etc/passwd
# (scripts run side by side; useradd exits 10 then).
add_user() {
	local i
	for i in $(seq 50); do
		useradd "$@" 2>/dev/null && return 0
		[ $? -eq 10 ] || return 1
		sleep 0.2
	done
	return 1
}
# del_user NAME: userdel -f, tried again the same way.
del_user() {
	local i
	for i in $(seq 50); do
		userdel -f "$1" 2>/dev/null && return 0
		[ $? -eq 10 ] || return 1
		sleep 0.2
	done
	return 1
}

ok() { # ok CONDITION-STATUS DESCRIPTION
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

check() { # check DESCRIPTION [!] COMMAND...: ok when the command succeeds (fails, with !)
	local desc=$1
	shift
	if [ "$1" = "!" ]; then
		shift
		! "$@"
	else
		"$@"
	fi
	ok $? "$desc"
}

diag() { sed 's/^/# /' "$@"; }

tap_cleanup() { # GPUTOP_TEST_KEEP=DIR: a failed script's directory is moved there, to look at
	echo "1..$TAP_N"
	if [ -n "${GPUTOP_TEST_KEEP:-}" ] && [ "$TAP_FAILED" -gt 0 ]; then
		mkdir -p "$GPUTOP_TEST_KEEP" && mv "$TMP" "$GPUTOP_TEST_KEEP/" && echo "# kept in $GPUTOP_TEST_KEEP"
	fi
	rm -rf "$TMP"
}

# Tiers: a script with a "# tier: fast" line also runs in `make unit` (tests/run.sh --tier fast),
# with GPUTOP_TEST_TIER=fast and no OpenCL platform visible. There the checks that need the
# device are left out: with_device is false, and device_from_here ends the script (the checks
# after it all need the device). Every check runs in `make test`.
with_device() { [ "${GPUTOP_TEST_TIER:-}" != fast ]; }
device_from_here() { with_device || exit 0; }

UID_=$(id -u)
SUPS=() # supervisors this script started with start

# start NAME ARGS...: a headless supervisor in the background logging to $TMP/NAME.log (its
# standard error to $TMP/NAME.err); sets SUP to its pid.
start() {
	local name=$1
	shift
	"$BIN" --headless "$@" -o "$TMP/$name.log" 2>"$TMP/$name.err" &
	SUP=$!
	SUPS+=("$SUP")
}
# Workers of supervisor $1, by their hidden argument.
workers_of() { pgrep -f -- "--worker=/gputop-decode\.$UID_\.$1\." | wc -l; }
gone() { ! kill -0 "$1" 2>/dev/null; }
# Ends every supervisor start started, its workers and their segments, whatever state they are in.
stop_started() {
	for s in "${SUPS[@]}"; do
		kill -CONT "$s" 2>/dev/null
		kill -9 "$s" $(pgrep -f -- "--worker=/gputop-decode\.$UID_\.$s\.") 2>/dev/null
		rm -f /dev/shm/gputop-decode."$UID_"."$s".*
	done
}

# Segments that belong to supervisor pid $1 (its workers' and its observed processes': the
# names are /dev/shm/gputop-decode.<uid>.<supervisor pid>.*). Tests run side by side: each
# counts only its own runs' segments and processes, never every one of the machine.
segments_of() {
	local f n=0
	for f in /dev/shm/gputop-decode."$UID_"."$1".*; do
		{ [ -e "$f" ] || [ -L "$f" ]; } && n=$((n + 1))
	done
	echo $n
}
# Live gputop-decode processes whose parent is $1 (zombies included).
children_of() { ps -o pid= --ppid "$1" 2>/dev/null | wc -l; }
# Running processes of supervisor $1's observed programs, whatever their parent is now: each has
# the run's GPUTOP_DECODE_OBSERVE=<supervisor pid>:<token> in its environment (zombies have none).
observed_of() { grep -lz "^GPUTOP_DECODE_OBSERVE=$1:" /proc/[0-9]*/environ 2>/dev/null | wc -l; }

# stop_when SECONDS PID COMMAND...: once the command succeeds (polled, at most SECONDS), SIGINT to
# the run PID; RC is its exit status (a run that ended by itself keeps its own). Runs whose
# checks need batches go on until the batches are there: a fixed duration would ask a loaded
# machine to be fast enough.
stop_when() {
	local secs=$1 pid=$2
	shift 2
	wait_for "$secs" "$@"
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	RC=$?
}
# batches_reach N LOG: a worker row of the log (CSV with every field, or JSONL) counts N batches
# or more.
batches_reach() {
	awk -F, -v n="$1" '
		/"kind":"worker"/ {
			if (match($0, /"batches":[0-9]+/) && substr($0, RSTART + 10, RLENGTH - 10) + 0 >= n)
				found = 1
			next
		}
		$2 == "worker" && $8 + 0 >= n { found = 1 }
		END { exit !found }' "$2" 2>/dev/null
}

# measured N LOG: N worker rows or more of the log (CSV with every field, or JSONL) with a rate
# above 0 (a grep: the numbers are read the same under any locale).
measured() {
	local n
	n=$(grep -csE '"kind":"worker".*"mbit_s":[0-9.]*[1-9]|^[0-9.]+,worker,([^,]*,){4}[0-9.]*[1-9]' "$2")
	[ "${n:-0}" -ge "$1" ]
}
# windows_with_batches N LOG: N worker rows or more of the JSONL log saw batches complete.
windows_with_batches() {
	local n
	n=$(grep -cs '"kind":"worker".*"window_batches":[1-9]' "$2")
	[ "${n:-0}" -ge "$1" ]
}

# wait_for SECONDS COMMAND...: polls until the command succeeds (bounded: never a test of speed).
wait_for() {
	local limit=$1
	shift
	local end=$((SECONDS + limit))
	while [ $SECONDS -lt $end ]; do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}
