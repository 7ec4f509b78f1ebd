#!/usr/bin/env bash
# dashboard_cost.sh: what the dashboard process itself costs: CPU (% of one core) with 16 workers
# at a 1 s interval, and resident memory with 16 and with 64 workers, next to the headless
# supervisor's with the same 64 workers (what collection alone costs). Not a test: it prints
# figures. Runs the real binary in a private tmux terminal; workers are kept small.
#   bench/dashboard_cost.sh [SECONDS]     (default 20 s of CPU measurement)
set -u
cd "$(dirname "$0")/.."
BIN=$PWD/gputop-decode
SECS=${1:-20}
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-/tmp/gputop-decode-pocl-cache}"
SOCK=$(mktemp -u /tmp/gputop-decode-bench.XXXXXX)
TM=(tmux -S "$SOCK" -f /dev/null)
DPID=
HZ=$(getconf CLK_TCK)

cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && sleep 3
	"${TM[@]}" kill-server >/dev/null 2>&1
	rm -f "$SOCK"
}
trap cleanup EXIT

[ -x "$BIN" ] || { echo "build first: make" >&2; exit 1; }
"${TM[@]}" new-session -d -x 120 -y 80 -s main "env PS1='$ ' bash --norc --noprofile"
"${TM[@]}" set -g status off >/dev/null
SHPID=$("${TM[@]}" display -p -t main '#{pane_pid}')

wait_until() { # wait_until SECONDS COMMAND...
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.5
	done
}
find_dash() { DPID=$(pgrep -P "$SHPID" -f gputop-decode | head -1); [ -n "$DPID" ]; }
running() { [ "$("${TM[@]}" capture-pane -p -t main | grep -cE "^[> ] *[0-9]+ +[0-9]+ +running ")" -ge "$1" ]; }
ticks() { sed 's/.*) //' "/proc/$DPID/stat" | awk '{ print $12 + $13 }'; } # utime + stime
kib() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$DPID/status"; }
mib() { awk -v v="$1" 'BEGIN { printf "%.1f", v / 1024 }'; }

start() { # start WORKERS ARGS...
	local n=$1
	shift
	"${TM[@]}" send-keys -t main "clear; $BIN $*" Enter
	wait_until 20 find_dash || { echo "the dashboard did not start" >&2; exit 1; }
	wait_until 300 running "$n" || { echo "not all $n workers reached running" >&2; exit 1; }
	sleep 3 # a few frames, so the history and the tables have their steady size
}

stop() {
	"${TM[@]}" send-keys -t main q
	wait_until 30 eval '! kill -0 "$DPID" 2>/dev/null'
	DPID=
}

memory() { # memory LABEL
	printf '%s: RSS %s MiB = anonymous %s + files %s + shared memory %s; peak %s MiB\n' "$1" \
		"$(mib "$(kib VmRSS)")" "$(mib "$(kib RssAnon)")" "$(mib "$(kib RssFile)")" \
		"$(mib "$(kib RssShmem)")" "$(mib "$(kib VmHWM)")"
}

cmd16="-n 16 --max-procs 64 -s 20000 -l 2 -i 1"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) cores, $(. /etc/os-release; echo "$PRETTY_NAME")"
echo "device: $("$BIN" --list-devices | head -1 | cut -c1-80)"
echo "command: gputop-decode $cmd16   (dashboard in a 120x80 tmux terminal)"
start 16 $cmd16
t0=$(ticks) s0=$(date +%s.%N)
sleep "$SECS"
t1=$(ticks) s1=$(date +%s.%N)
awk -v t="$((t1 - t0))" -v hz="$HZ" -v a="$s0" -v b="$s1" \
	'BEGIN { printf "16 workers, -i 1: dashboard CPU %.2f %% of one core over %.1f s\n", 100 * t / hz / (b - a), b - a }'
memory "16 workers"
stop

cmd64="-n 64 --max-procs 64 -s 1000 -l 1 -i 1"
echo "command: gputop-decode $cmd64"
start 64 $cmd64
memory "64 workers, dashboard"
stop

# The same 64 workers without a dashboard: the supervisor and collection alone.
log=$(mktemp /tmp/gputop-decode-bench.XXXXXX)
"$BIN" --headless $cmd64 -o "$log" &
DPID=$!
all_running() { [ "$(tail -n 65 "$log" | grep -c ',worker,.*,running,')" -ge 64 ]; }
wait_until 300 all_running && sleep 3 && memory "64 workers, headless"
kill -TERM "$DPID"
wait "$DPID"
DPID=
rm -f "$log"
