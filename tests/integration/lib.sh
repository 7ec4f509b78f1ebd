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
TMP=$(mktemp -d /tmp/gputop-decode-it.XXXXXX)
# The dashboard's config file: the test's own, never the user's (a tmux server started later
# passes it on to its panes).
export XDG_CONFIG_HOME="$TMP/config"
trap 'tap_cleanup' EXIT

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

tap_cleanup() {
	echo "1..$TAP_N"
	rm -rf "$TMP"
}

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

# Segments of this uid in /dev/shm.
segments() { ls /dev/shm 2>/dev/null | grep -c "^gputop-decode\.$(id -u)\." ; }
# Segments that belong to supervisor pid $1.
segments_of() { ls /dev/shm 2>/dev/null | grep -c "^gputop-decode\.$(id -u)\.$1\." ; }
# Live gputop-decode processes whose parent is $1 (zombies included).
children_of() { ps -o pid= --ppid "$1" 2>/dev/null | wc -l; }
# Worker processes of any supervisor (by their hidden argument).
workers_running() { pgrep -f -- "gputop-decode --worker" | wc -l; }

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
