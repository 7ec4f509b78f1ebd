#!/usr/bin/env bash
# soak.sh: a long run (not in CI) of about 16 busy workers on the default OpenCL device with
# random adds, graceful removes and SIGKILLs, reporting samples published, read and lost, and
# leaked segments, file descriptors and zombies. Usage: bench/soak.sh [MINUTES] (default 10).
#
# A headless supervisor cannot add workers, so the run is a chain of epochs. Each starts one
# supervisor with 32 workers: 16 run, 16 wait paused (SIGUSR1) as the pool that "add" draws on
# (SIGUSR2). "remove" is a SIGTERM to a worker (it finishes its batch), "kill" a SIGKILL. An
# epoch ends, with a SIGTERM to its supervisor, once its pool is spent.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$ROOT/gputop-decode"
MINUTES=${1:-10}
UID_=$(id -u)
W=(-s 20000 -l 2 -i 0.5 -f jsonl)
OUT=$(mktemp -d /tmp/gputop-decode-soak.XXXXXX)
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-/tmp/gputop-decode-pocl-cache}"
SUPS=()
trap 'for s in "${SUPS[@]}"; do kill -9 $s $(pgrep -f -- "--worker=/gputop-decode\.$UID_\.$s\.") 2>/dev/null; done' EXIT

workers() { # workers SUP: "pid state" of its live workers, state R (running) or P (paused)
	pgrep -f -- "--worker=/gputop-decode\.$UID_\.$1\." |
		awk 'FILENAME != "-" { p[$1]; next } { print $1, ($1 in p) ? "P" : "R" }' "$OUT/paused" -
}
one() { workers "$1" | awk -v s="$2" '$2 == s { print $1 }' | shuf -n 1; }
count() { workers "$1" | awk -v s="$2" '$2 == s' | wc -l; }
zombies() { ps -o stat= --ppid "$1" 2>/dev/null | grep -c '^Z'; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
shm_fds() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c ' /dev/shm/'; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

# epoch N: one supervisor's life; appends its figures to $OUT/epochs.
epoch() {
	local n=$1 log="$OUT/epoch$1.jsonl" maxz=0 z adds=0 removes=0 kills=0 v i
	"$BIN" --headless -n 32 --max-procs 64 "${W[@]}" -o "$log" 2>>"$OUT/stderr" &
	local S=$!
	SUPS+=("$S")
	: >"$OUT/paused"
	for ((i = 0; i < 300; i++)); do
		[ "$(pgrep -fc -- "--worker=/gputop-decode\.$UID_\.$S\.")" -ge 32 ] && break
		sleep 0.2
	done
	pgrep -f -- "--worker=/gputop-decode\.$UID_\.$S\." | tail -n 16 | tee "$OUT/paused" | xargs kill -USR1
	for ((i = 0; i < 240; i++)); do
		[ "$(grep -c '"state":"running"' "$log" 2>/dev/null)" -ge 16 ] && break
		sleep 0.5
	done
	local fd0 rss0
	fd0=$(($(fds $S) - $(shm_fds $S))) rss0=$(rss $S)
	while [ $SECONDS -lt $END ] && { [ "$(count $S P)" -gt 0 ] || [ "$(count $S R)" -gt 12 ]; }; do
		sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.3 + r / 32768 * 1.2 }')"
		case $((RANDOM % 3)) in
		0) v=$(one $S P) && [ -n "$v" ] && [ "$(count $S R)" -lt 20 ] &&
			sed -i "/^$v\$/d" "$OUT/paused" && kill -USR2 "$v" && adds=$((adds + 1)) ;;
		1) v=$(one $S R) && [ -n "$v" ] && [ "$(count $S R)" -gt 12 ] && kill -TERM "$v" && removes=$((removes + 1)) ;;
		2) v=$(one $S R) && [ -n "$v" ] && kill -9 "$v" && kills=$((kills + 1)) ;;
		esac
		z=$(zombies $S)
		[ "$z" -gt $maxz ] && maxz=$z
	done
	sleep 2 # let the last deaths be reaped and reported
	local fd1 rss1 z1 extra
	fd1=$(($(fds $S) - $(shm_fds $S))) rss1=$(rss $S) z1=$(zombies $S)
	extra=$(($(shm_fds $S) - $(count $S R) - $(count $S P))) # segments held of workers gone
	[ "$fd1" -gt "$fd0" ] || [ "$extra" -gt 0 ] && ls -l "/proc/$S/fd" >"$OUT/fds$n"
	kill -TERM $S
	local t0=$SECONDS
	wait $S
	local rc=$? left
	left=$(ls /dev/shm | grep -c "^gputop-decode\.$UID_\.$S\.")
	echo "$n $S $rc $((SECONDS - t0)) $adds $removes $kills $fd0 $fd1 $rss0 $rss1 $maxz $z1 $left $extra" >>"$OUT/epochs"
}

END=$((SECONDS + MINUTES * 60))
START_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
n=0
while [ $SECONDS -lt $END ]; do
	n=$((n + 1))
	epoch $n
done

# Samples: published (the workers' own batch totals), read (window_batches summed) and lost,
# per worker from its last row; what a worker published after its last row is "unlogged".
python3 - "$OUT" <<'PY'
import glob, json, sys
out = sys.argv[1]
pub = read = lost = unlogged = workers = torn = bad = 0
for path in sorted(glob.glob(out + "/epoch*.jsonl")):
    last, got = {}, {}
    for line in open(path):
        r = json.loads(line)
        if r["kind"] != "worker":
            continue
        last[r["id"]] = r
        got[r["id"]] = got.get(r["id"], 0) + r.get("window_batches", 0)
    for wid, r in last.items():
        workers += 1
        d = r["batches"] - got[wid] - r["lost"]
        pub += r["batches"]; read += got[wid]; lost += r["lost"]
        if d == -1 and r["state"] in ("exited", "failed"):
            torn += 1
        elif d < 0 or (d > 0 and r["state"] in ("exited", "failed")):
            bad += 1
        else:
            unlogged += d
print("workers %d: published %d, read %d, lost %d (%d torn by SIGKILL), unlogged at the end %d, "
      "inconsistent workers %d" % (workers, pub, read, lost, torn, unlogged, bad))
PY
awk '{ a += $5; r += $6; k += $7; if ($9 > $8 || $15 > 0) fd++; if ($12 > mz) mz = $12; z += $13; l += $14; if ($3) bad++;
       if ($4 > ts) ts = $4 }
     END { printf "epochs %d: adds %d, removes %d, kills %d; supervisor exits non-zero %d, slowest stop %d s\n", NR, a, r, k, bad, ts;
           printf "leaks: segments %d, epochs that gained an fd %d, zombies at the end %d (most seen at once %d)\n", l, fd, z, mz }' "$OUT/epochs"
awk '{ printf "  epoch %d: fds other than segments %d -> %d, segments held of ended workers %d, RSS %d -> %d kB\n", $1, $8, $9, $15, $10, $11 }' "$OUT/epochs"
echo "stale segments of this uid now: $(ls /dev/shm | grep -c "^gputop-decode\.$UID_\.")"
echo "stderr lines: $(wc -l <"$OUT/stderr" 2>/dev/null || echo 0) ($OUT/stderr)"
echo "started $START_DATE, $MINUTES min, $(nproc) CPUs, $(uname -sr); logs in $OUT"
