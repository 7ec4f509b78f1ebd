#!/usr/bin/env bash
# test_supervisor_stop.sh: a supervisor stopped (SIGSTOP) while its worker keeps publishing
# thousands of tiny batches, so that the ring overflows: the time it could not observe is one
# window flagged unobserved, with its rates left out instead of zero and the lost records in
# it; the windows after it follow the regular schedule again, none with an impossible rate.
# tier: device, about 10 s
. "$(dirname "$0")/lib.sh"

LOG="$TMP/stop.jsonl"
# aggregates [N]: aggregate rows after line N of the log (all by default).
aggregates() { tail -n +$((${1:-0} + 1)) "$LOG" 2>/dev/null | grep -c '"kind":"aggregate"'; }

"$BIN" --headless -m kernel-only -n 1 -s 1000 -l 1 -i 0.2 -f jsonl -o "$LOG" 2>"$TMP/stop.err" &
pid=$!
on_exit 'kill -CONT $pid 2>/dev/null; kill -TERM $pid 2>/dev/null; tap_cleanup'
wait_for 60 grep -qs '"window_batches":[1-9]' "$LOG"
n=$(aggregates)
wait_for 30 eval 'test "$(aggregates)" -ge $((n + 3))'
ok $? "the worker runs and windows are logged"
# Long enough for the ring (1024 records) to overflow at least 3 times: the stop lasts until the
# worker has had the CPU time of 3 x 1024 batches at its rate per CPU second seen before (what a
# loaded machine gives it, not the wall clock, decides), 3 s at least and 60 s at most.
WPID=$(pgrep -P $pid -f -- --worker= | head -1)
ticks() { sed -E 's/^.*\) //' "/proc/$WPID/stat" 2>/dev/null | awk '{ print $12 + $13 }'; } # utime + stime
last_batches() { grep '"kind":"worker"' "$LOG" | tail -n 1 | sed -nE 's/.*"batches":([0-9]+).*/\1/p'; }
b0=$(last_batches) c0=$(ticks) n=$(aggregates)
wait_for 60 eval 'test "$(aggregates)" -ge $((n + 5)) -a "$(ticks)" -gt "$c0" -a "$(last_batches)" -gt "$b0"'
b1=$(last_batches) c1=$(ticks)
per=$((b1 > b0 ? b1 - b0 : 1))
need=$(((3 * 1024 * (c1 - c0) + per - 1) / per)) # clock ticks of the worker for 3 ring-fulls
mark=$(wc -l <"$LOG")
s0=$(ticks)
t0=$EPOCHREALTIME
kill -STOP $pid
sleep 3
wait_for 57 eval 'test $(($(ticks) - s0)) -ge $need'
kill -CONT $pid
t1=$EPOCHREALTIME
stop_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
echo "# $((b1 - b0)) batches in $((c1 - c0)) ticks of the worker before; stopped until $need ticks more"
wait_for 30 eval 'test "$(aggregates $mark)" -ge 5'
ok $? "after SIGCONT (stopped $stop_s s) the supervisor logs windows again"
kill -TERM $pid
wait $pid
ok $? "it ends on SIGTERM with status 0"

python3 - "$LOG" "$mark" "$stop_s" >"$TMP/check.out" 2>&1 <<'PY'
import json, statistics, sys
lines = open(sys.argv[1]).read().splitlines()
mark, stop_s = int(sys.argv[2]), float(sys.argv[3])
wins, cur = [], []
for n, l in enumerate(lines):
    r = json.loads(l)
    if r["kind"] == "run":
        continue  # the run header
    if r["kind"] == "worker":
        cur.append(r)
    else:
        wins.append((r, cur, n >= mark))
        cur = []
missing = [a["t_s"] for a, _, _ in wins if "observed" not in a]
assert not missing, "aggregate rows without the observed flag at %s" % missing[:5]
gaps = [(a, ws) for a, ws, _ in wins if a["observed"] is False]
seen = [(a, ws) for a, ws, _ in wins if a["observed"] is True]
before = [ws[0]["lost"] for a, ws, after in wins if not after and ws]
after = [ws[0]["lost"] for a, ws, after in wins if after and ws]
jump = max(after) - (before[-1] if before else 0)
print("# stopped %g s; %d windows, %d unobserved (%s); lost during the stop %d" % (stop_s, len(wins), len(gaps),
      ", ".join("%.1f s ending at %.1f" % (a["window_s"], a["t_s"]) for a, _ in gaps), jump))
assert jump > 0, "the ring did not overflow in %g s: nothing to check" % stop_s
# The stop is one window, flagged, at least as long as the stop less one interval and a settle.
long = [(a, ws) for a, ws in gaps if a["window_s"] >= stop_s - 0.35]
assert len(long) == 1, "no single unobserved window covers the %g s stop" % stop_s
a, ws = long[0]
assert a["lost"] >= jump, "the records lost in the stop (%d) are not in its window (%d)" % (jump, a["lost"])
for a, ws in gaps:
    for k in ("mbit_s", "device_busy", "headroom"):
        assert k not in a, "unobserved window at %s carries %s" % (a["t_s"], k)
    for w in ws:
        for k in ("mbit_s", "kernel_busy", "gen_us", "gap_batch_us", "window_batches"):
            assert k not in w, "worker row of the unobserved window at %s carries %s" % (a["t_s"], k)
        assert w["observed"] is False and "lost" in w and "batches" in w
# Every observed window is one interval on the regular grid: the schedule resumed after the gap.
for a, ws in seen:
    assert abs(a["window_s"] - 0.2) < 1e-3, "observed window of %s s at %s" % (a["window_s"], a["t_s"])
    assert abs(a["t_s"] / 0.2 - round(a["t_s"] / 0.2)) < 1e-2, "window end %s is off the grid" % a["t_s"]
    # Without a rate only where no batch completed in it (the first batch still under way).
    assert "mbit_s" in a or not any(w.get("window_batches") for w in ws), \
        "observed window at %s has no mbit_s" % a["t_s"]
# No observed window reports an impossible rate: nothing of the stop lands in one window.
rates = [a["mbit_s"] for a, _ in seen if a.get("mbit_s", 0) > 0]
med = statistics.median(rates)
assert max(rates) <= 20 * med, "a window reports %.1f Mbit/s, the median is %.1f" % (max(rates), med)
# Counts stay whole: what the windows read plus what was lost is at most what was published.
w = wins[-1][1][0]
read = sum(x["window_batches"] for a, ws in seen for x in ws)
assert read + w["lost"] <= w["batches"], "read %d + lost %d > published %d" % (read, w["lost"], w["batches"])
PY
ok $? "the stop is one window flagged unobserved holding the lost records, without rates; the others are regular"
diag "$TMP/check.out"
check "nothing on stderr" test ! -s "$TMP/stop.err"
