#!/usr/bin/env bash
# test_faults.sh: faults around a headless supervisor on real workers: a storm of worker
# SIGKILLs, a stopped worker, every quit signal and SIGKILL to the supervisor, stale segments
# of dead instances, and device faults (a kernel that does not build, a batch too large).
# tier: device, about 55 s
# It runs in a /dev/shm of its own (a private mount, where the machine allows one): the stale
# segments it leaves on purpose are then swept by its own runs only, never by a run of another
# test started meanwhile. Its counts are of its own runs' segments either way.
if [ -z "${GD_OWN_SHM:-}" ] && [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	GD_OWN_SHM=1 exec unshare -m --propagation private \
		sh -c 'mount -t tmpfs -o mode=1777 tmpfs /dev/shm || GD_OWN_SHM=0; exec bash "$0" "$@"' "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
[ "${GD_OWN_SHM:-}" = 1 ] && echo "# in a /dev/shm of its own (a private mount)" ||
	echo "# in the machine's /dev/shm: no private mount here"
W=(-s 20000 -l 2 -i 0.2) # a small workload: the machine may be a loaded 2-core box
FAKES=()                  # segments this script made by hand

cleanup() {
	stop_started
	for f in "${FAKES[@]}"; do rm -f "/dev/shm/$f"; done
	[ -n "${SLEEPER:-}" ] && kill "$SLEEPER" 2>/dev/null
	tap_cleanup
}
on_exit cleanup

# worker_list SUP: "pid slot segment" for each live worker of SUP.
worker_list() {
	pgrep -af -- "--worker=/gputop-decode\.$UID_\.$1\." |
		sed -n "s|^\([0-9]*\) .*--worker=/\(gputop-decode\.$UID_\.$1\.\([0-9]*\)\.[0-9a-f]*\),.*|\1 \3 \2|p"
}
# rows LOG STATE [ID]: CSV worker rows in that state (of worker ID).
rows() { local n; n=$(grep -cs "^[0-9.]*,worker,${3:-[0-9]*},[0-9]*,$2," "$1"); echo "${n:-0}"; }
aggregates() { local n; n=$(grep -cs ',aggregate,' "$1"); echo "${n:-0}"; }
# batches LOG ID: the latest batch total of worker ID.
batches() { local n; n=$(grep -s "^[0-9.]*,worker,$2,[0-9]*," "$1" | tail -n 1 | cut -d, -f8); echo "${n:-0}"; }

# Log checks in Python: every line whole, the CSV header and field count or valid JSON,
# known kinds and states, numbers where numbers belong, and an aggregate row last.
cat >"$TMP/valid.py" <<PY
import sys
sys.path.insert(0, "$ROOT/tests/integration")
from check_log import FIELDS, STRINGS
PY
cat >>"$TMP/valid.py" <<'PY'
import csv, json
path, fmt = sys.argv[1], sys.argv[2]
STATES = {"starting", "running", "paused", "stopping", "exited", "failed", "stalled"}
text = open(path).read()
assert text.endswith("\n"), "the log does not end with a whole line"
if fmt == "csv":
    lines = list(csv.reader(text.splitlines()))
    assert lines[0] == FIELDS, "bad header %r" % lines[0]
    rows = []
    for n, rec in enumerate(lines[1:], 2):
        assert len(rec) == len(FIELDS), "line %d has %d fields" % (n, len(rec))
        row = dict(zip(FIELDS, rec))
        for k, v in row.items():
            if k not in STRINGS and v != "":
                row[k] = float(v)
        rows.append({k: v for k, v in row.items() if v != ""})
else:
    rows = [json.loads(l) for l in text.splitlines()]
assert rows and rows[0]["kind"] == "run", "no run header first"
rows = rows[1:]
assert rows, "no rows"
for n, r in enumerate(rows):
    assert r["kind"] in ("worker", "aggregate"), "row %d kind %r" % (n, r["kind"])
    if r["kind"] == "worker":
        assert r["state"] in STATES, "row %d state %r" % (n, r["state"])
        assert 0 <= r["lost"] == int(r["lost"]), "row %d lost %r" % (n, r["lost"])
        assert r["lost"] <= r["batches"] + 1, "row %d lost %r > batches %r" % (n, r["lost"], r["batches"])
assert rows[-1]["kind"] == "aggregate", "the last row is not an aggregate"
print("%d rows" % len(rows))
PY
valid() { python3 "$TMP/valid.py" "$1" "$2" >"$TMP/valid.out" 2>&1 || { diag "$TMP/valid.out"; return 1; }; }

# ---- a storm of worker SIGKILLs: 50 kills in one run, in start-up and while running ----
# Headless runs cannot add workers, so all 52 start at once. To keep a small machine
# responsive, workers wait paused (SIGUSR1, as the supervisor's pause does) and each victim
# runs only from its SIGUSR2 to its SIGKILL. Every worker but slots 1 and 2 is picked once and
# sent SIGKILL: the kill lands (victims) or the worker had already ended (ended: on a loaded
# machine the supervisor may have failed a worker whose segment did not come in time).
rand_sleep() { sleep "$(awk -v r=$RANDOM -v m="$1" 'BEGIN { printf "%.3f", r / 32768 * m / 1000 }')"; }
# pick SUP: "pid slot segment" of a live worker not picked before, but slots 1 and 2.
pick() {
	worker_list "$1" | awk 'FILENAME != "-" { seen[$1] = 1; next } $2 > 2 && !($2 in seen)' \
		"$TMP/victims" "$TMP/ended" - | shuf -n 1
}
# sigkill "pid slot segment": the kill, and "slot segment" in victims or ended.
sigkill() { kill -9 "${1%% *}" 2>/dev/null && echo "${1#* }" >>"$TMP/victims" || echo "${1#* }" >>"$TMP/ended"; }
: >"$TMP/victims"
: >"$TMP/ended"
start storm -n 52 --max-procs 64 "${W[@]}"
S=$SUP
kills() { wc -l <"$TMP/victims"; }
for ((i = 0; i < 300 && $(kills) < 20; i++)); do # in start-up: most have no segment yet
	kill -USR1 $(worker_list $S | cut -d' ' -f1) 2>/dev/null
	v=$(pick $S)
	[ -n "$v" ] && sigkill "$v"
	rand_sleep 80
done
for ((i = 0; i < 10; i++)); do # pause those that were not yet exec'd above
	kill -USR1 $(worker_list $S | cut -d' ' -f1) 2>/dev/null
	sleep 0.1
done
# The worker rows of the latest window.
last_window() { awk -F, '$2 == "worker" { b = b $0 "\n" } $2 == "aggregate" { l = b; b = "" } END { printf "%s", l }' "$1"; }
wait_for 90 eval 'last_window "$TMP/storm.log" | grep -q ,paused, && ! last_window "$TMP/storm.log" | grep -q ,starting,'
ok $? "the other workers start and wait paused amid the kills"
# While running: each of the others resumed, then killed at a random moment (at most 50 picks).
for ((i = 0; i < 50; i++)); do
	v=$(pick $S)
	[ -n "$v" ] || break
	kill -USR2 ${v%% *} 2>/dev/null
	rand_sleep 400
	sigkill "$v"
done
kill -USR2 $(worker_list $S | cut -d' ' -f1) 2>/dev/null
nkills=$(wc -l <"$TMP/victims") nended=$(wc -l <"$TMP/ended")
check "SIGKILLs: each of the 50 others picked once ($nkills landed, $nended had ended), at least one landed" \
	test "$((nkills + nended))" -le 50 -a "$nkills" -ge 1 -a \
	"$(cut -d' ' -f1 "$TMP/victims" "$TMP/ended" | sort -u | wc -l)" -eq $((nkills + nended))
check "the supervisor survives the storm" kill -0 $S
segs_gone() { while read -r _ seg; do [ ! -e "/dev/shm/$seg" ] || return 1; done <"$TMP/victims"; }
wait_for 30 segs_gone
ok $? "every killed worker's segment is unlinked"
all_failed() { while read -r slot _; do [ "$(rows "$TMP/storm.log" failed "$slot")" -ge 1 ] || return 1; done <"$TMP/victims"; }
wait_for 30 all_failed
ok $? "every killed worker's row shows failed (a SIGKILL the supervisor did not send)"
# others_ended: every worker of slots 3-52 not SIGKILLed here has ended (failed or exited).
others_ended() {
	awk -F, -v v="$(cut -d' ' -f1 "$TMP/victims" | tr '\n' ' ')" '
		BEGIN { n = split(v, a, " "); for (i = 1; i <= n; i++) victim[a[i]] = 1 }
		$2 == "worker" && $3 > 2 { last[$3] = $5 }
		END {
			for (s = 3; s <= 52; s++)
				if (!(s in victim) && last[s] != "failed" && last[s] != "exited")
					exit 1
		}' "$TMP/storm.log"
}
wait_for 30 others_ended
ok $? "every other worker of slots 3-52 ($((50 - nkills)) not SIGKILLed here) had ended: failed or exited"
wait_for 30 eval 'test "$(children_of $S)" -eq 2'
ok $? "no zombie is left: the supervisor has only its 2 spared workers ($(children_of $S))"
b1=$(batches "$TMP/storm.log" 1) b2=$(batches "$TMP/storm.log" 2) n=$(aggregates "$TMP/storm.log")
wait_for 30 eval 'test "$(batches "$TMP/storm.log" 1)" -gt "${b1:-0}" -a "$(batches "$TMP/storm.log" 2)" -gt "${b2:-0}"'
ok $? "the 2 spared workers keep decoding"
wait_for 30 eval 'test "$(aggregates "$TMP/storm.log")" -gt $((n + 3))'
ok $? "the log keeps going"
kill -TERM $S
wait_for 15 gone $S
ok $? "the supervisor ends on SIGTERM after the storm"
wait $S
check "it exits 0" test $? -eq 0
check "the storm's log is valid CSV" valid "$TMP/storm.log" csv
diag "$TMP/valid.out"
# Per killed worker: each batch it published was read once or counted lost once; a record
# it was killed in the middle of publishing may add one lost.
python3 - "$TMP/storm.log" "$TMP/victims" >"$TMP/once.out" 2>&1 <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "worker"]
victims = {l.split()[0] for l in open(sys.argv[2])}
startup = running = 0
for slot in victims:
    mine = [r for r in rows if r["id"] == slot]
    # A window the supervisor could not observe has no mbit_s; its batches count as lost.
    read = sum(round(float(r["mbit_s"] or 0) * 0.2 * 1e6 / 20000) for r in mine)
    last = mine[-1]
    b, lost = int(last["batches"]), int(last["lost"])
    assert last["state"] == "failed", "worker %s ends %s" % (slot, last["state"])
    assert b <= read + lost <= b + 1, "worker %s: %d read + %d lost for %d batches" % (slot, read, lost, b)
    if b > 0:
        running += 1
    else:
        startup += 1
print("killed in start-up or paused: %d, after publishing: %d" % (startup, running))
assert startup and running, "kills did not cover both start-up and running"
PY
ok $? "killed workers: batches read + lost = published (+1 torn), in start-up and while running"
diag "$TMP/once.out"
check "no segment of the storm is left" test "$(segments_of $S)" -eq 0
check "no worker of the storm is left" test "$(workers_of $S)" -eq 0
start after -n 2 -D 300 "${W[@]}" # until both run (bounded), then SIGINT
stop_when 120 $SUP eval 'test "$(rows "$TMP/after.log" running)" -ge 2'
ok $RC "a new run afterwards starts its workers and exits 0"
check "both of its workers ran" test "$(rows "$TMP/after.log" running)" -ge 2

# ---- SIGSTOP: the supervisor sees the stop (waitpid) and shows the worker paused without
# blocking anything; running again after SIGCONT ----
start stop -n 2 "${W[@]}"
S=$SUP
wait_for 60 eval 'test "$(rows "$TMP/stop.log" running 1)" -ge 1 -a "$(rows "$TMP/stop.log" running 2)" -ge 1'
ok $? "both workers run"
victim=$(worker_list $S | awk '$2 == 1 { print $1 }')
kill -STOP "$victim"
wait_for 20 eval 'test "$(rows "$TMP/stop.log" paused 1)" -ge 1'
ok $? "a SIGSTOPped worker is shown paused"
b2=$(batches "$TMP/stop.log" 2) n=$(aggregates "$TMP/stop.log")
wait_for 20 eval 'test "$(batches "$TMP/stop.log" 2)" -gt "$b2" -a "$(aggregates "$TMP/stop.log")" -gt $((n + 3))'
ok $? "while it is stopped the other worker and the log go on"
mark=$(wc -l <"$TMP/stop.log")
kill -CONT "$victim"
wait_for 20 bash -c "tail -n +$((mark + 1)) '$TMP/stop.log' | grep -q '^[0-9.]*,worker,1,[0-9]*,running,'"
ok $? "after SIGCONT it is running again"
kill -TERM $S
wait $S
check "the SIGSTOP run's log is valid" valid "$TMP/stop.log" csv

# ---- SIGTERM, SIGINT, SIGHUP to the supervisor: all gone within 5 s, the log valid ----
for sig in TERM INT HUP; do
	fmt=$([ $sig = INT ] && echo jsonl || echo csv)
	start "sig$sig" -n 3 -f $fmt "${W[@]}"
	S=$SUP
	wait_for 60 grep -qs 'running' "$TMP/sig$sig.log"
	kill -$sig $S
	t0=$SECONDS
	wait_for 5 bash -c "! kill -0 $S 2>/dev/null && [ \$(pgrep -f -- '--worker=/gputop-decode\.$UID_\.$S\.' | wc -l) -eq 0 ]"
	ok $? "SIG$sig: the supervisor and every worker are gone within 5 s ($((SECONDS - t0)) s)"
	wait $S
	check "SIG$sig: exit status 0" test $? -eq 0
	check "SIG$sig: every segment is unlinked" test "$(segments_of $S)" -eq 0
	check "SIG$sig: the $fmt log is complete and valid" valid "$TMP/sig$sig.log" $fmt
	check "SIG$sig: nothing on stderr" test ! -s "$TMP/sig$sig.err"
done

# ---- SIGKILL to the supervisor: its workers exit by themselves and unlink their segments ----
start orphan -n 3 "${W[@]}"
S=$SUP
wait_for 60 eval 'test "$(rows "$TMP/orphan.log" running)" -ge 3'
check "3 workers and their segments exist" test "$(workers_of $S)" -eq 3 -a "$(segments_of $S)" -eq 3
kill -9 $S
wait $S 2>/dev/null
wait_for 10 eval 'test "$(workers_of $S)" -eq 0'
ok $? "after SIGKILL of the supervisor its workers exit (parent-death signal)"
wait_for 10 eval 'test "$(segments_of $S)" -eq 0'
ok $? "and unlink their own segments"
check "the log of a SIGKILLed supervisor is still valid" valid "$TMP/orphan.log" csv

# ---- stale segments: the next start sweeps those of this uid and nothing alive ----
# Alive means: the pid in the name runs a process that started before the segment was last
# modified; the process's name is not looked at.
start live -n 2 "${W[@]}"
A=$SUP
start dead -n 2 "${W[@]}"
D=$SUP
wait_for 60 eval 'test "$(rows "$TMP/live.log" running)" -ge 2 -a "$(segments_of $D)" -eq 2'
kill -9 $(pgrep -f -- "--worker=/gputop-decode\.$UID_\.$D\.") $D # nobody left to unlink
wait $D 2>/dev/null
check "a SIGKILLed instance with SIGKILLed workers leaves 2 stale segments" test "$(segments_of $D)" -eq 2
sleep 1000 &
SLEEPER=$!
fake() { # fake NAME OWNER: a segment made by hand
	FAKES+=("$1")
	: >"/dev/shm/$1" && chmod 600 "/dev/shm/$1" && chown "$2" "/dev/shm/$1"
}
fake "gputop-decode.$UID_.$SLEEPER.1.00000000000000aa" "$UID_" # pid alive and older: kept
fake "gputop-decode.$UID_.$SLEEPER.2.00000000000000ab" "$UID_" # older than its pid: reused
touch -d '1 hour ago' "/dev/shm/${FAKES[1]}"
fake "gputop-decode.$UID_.999999999.1.00000000000000bb" 65534 # dead pid, another owner
fake "gputop-decode.65534.999999999.1.00000000000000cc" 65534 # another uid's name
start sweeper -n 1 -D 0.6 "${W[@]}"
wait $SUP
ok $? "a new instance starts and ends normally"
check "it swept the dead instance's segments" test "$(segments_of $D)" -eq 0
check "it kept a segment whose pid runs a process older than the segment" test -e "/dev/shm/${FAKES[0]}"
check "it swept a segment older than the process its pid now names" test ! -e "/dev/shm/${FAKES[1]}"
check "it left a segment of another owner alone" test -e "/dev/shm/${FAKES[2]}"
check "it left another uid's segment alone" test -e "/dev/shm/${FAKES[3]}"
check "it left the live instance's 2 segments alone" test "$(segments_of $A)" -eq 2
b1=$(batches "$TMP/live.log" 1)
wait_for 20 eval 'test "$(batches "$TMP/live.log" 1)" -gt "$b1"'
ok $? "the live instance keeps decoding"

# ---- device faults, next to the live instance ----
mkdir -p "$TMP/kernels"
cp "$ROOT/kernels/decode.cl" "$TMP/kernels/"
echo 'this is not OpenCL C;' >>"$TMP/kernels/decode.cl"
GPUTOP_DECODE_KERNELS="$TMP/kernels" start broken -n 2 "${W[@]}"
wait $SUP
check "a kernel that does not build: the run ends with status 1 before any worker starts" test $? -eq 1
check "the failure is on stderr with the OpenCL error name and the build log" grep -q "the decode kernel does not build on .*: clBuildProgram: CL_BUILD_PROGRAM_FAILURE: .*this" "$TMP/broken.err"
check "no log was written" test ! -e "$TMP/broken.log"
POCL_MEMORY_LIMIT=1 start huge -n 1 -s 40000000 -t f64 -l 1 -i 0.2
S=$SUP
wait_for 90 eval 'test "$(rows "$TMP/huge.log" failed 1)" -ge 1'
ok $? "a batch larger than the device allows: the worker is logged as failed"
check "the failure names CL_INVALID_BUFFER_SIZE or CL_MEM_OBJECT_ALLOCATION_FAILURE" grep -qE "worker 1 \(pid [0-9]*\) failed: clCreateBuffer.*(CL_INVALID_BUFFER_SIZE|CL_MEM_OBJECT_ALLOCATION_FAILURE)" "$TMP/huge.err"
diag "$TMP/huge.err"
wait_for 30 gone $S
ok $? "its only worker failed: the run ends by itself"
wait $S
check "with status 1" test $? -eq 1
check "saying every worker failed" grep -q "every worker failed (1 of 1)" "$TMP/huge.err"
check "its log is valid" valid "$TMP/huge.log" csv
check "the live instance's workers were unaffected" test "$(grep -cE ',worker,[12],[0-9]*,(failed|exited|stalled),' "$TMP/live.log")" -eq 0
b1=$(batches "$TMP/live.log" 1)
wait_for 20 eval 'test "$(batches "$TMP/live.log" 1)" -gt "$b1"'
ok $? "and keep decoding"
kill -TERM $A
wait $A
check "the live instance ends cleanly" test $? -eq 0
for s in "${SUPS[@]}"; do
	[ "$(segments_of $s)" -eq 0 ] && [ "$(workers_of $s)" -eq 0 ] || echo "# left over from $s"
done
left=0
for s in "${SUPS[@]}"; do left=$((left + $(segments_of $s) + $(workers_of $s))); done
check "no segment or worker of any run is left" test $left -eq 0
