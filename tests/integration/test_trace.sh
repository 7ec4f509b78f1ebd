#!/usr/bin/env bash
# test_trace.sh: --trace writes Chrome trace-event JSON with one track per worker, from which
# the union of kernel intervals per window reproduces the logged device_busy; the file stays
# valid when the run is stopped by a signal and when --trace-limit is reached.
. "$(dirname "$0")/lib.sh"

"$BIN" --headless -n 2 -s 20000 -l 4 -i 0.5 -D 3 -f jsonl -o "$TMP/log.jsonl" --trace "$TMP/trace.json"
ok $? "a traced 2-worker run exits 0"

python3 - "$TMP/trace.json" "$TMP/log.jsonl" >"$TMP/out" 2>&1 <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
log = [json.loads(l) for l in open(sys.argv[2])]
tracks = {e["pid"] for e in events if e.get("name") == "process_name" and e["pid"] > 0}
assert len(tracks) == 2, "tracks: %r" % tracks
kernels = [(e["ts"], e["ts"] + e["dur"]) for e in events if e.get("cat") == "kernel"]
assert kernels, "no kernel events"
per_track = {p: sum(1 for e in events if e.get("cat") == "kernel" and e["pid"] == p) for p in tracks}
assert all(per_track.values()), per_track
for cat in ("host", "h2d", "d2h"):
    assert any(e.get("cat") == cat for e in events), "no %s events" % cat

def union(ivs, a, b):
    total, cs, ce = 0.0, None, None
    for s, e in sorted(ivs):
        if cs is None or s > ce:
            if cs is not None:
                total += max(0.0, min(ce, b) - max(cs, a))
            cs, ce = s, e
        else:
            ce = max(ce, e)
    if cs is not None:
        total += max(0.0, min(ce, b) - max(cs, a))
    return total

worst, n = 0.0, 0
for row in log:
    if row["kind"] != "aggregate" or "device_busy" not in row:
        continue
    b = row["t_s"] * 1e6
    a = b - row["window_s"] * 1e6
    busy = union(kernels, a, b) / (b - a)
    worst = max(worst, abs(busy - row["device_busy"]))
    n += 1
    print("# window ending %.1f s: trace %.4f, log %.4f" % (row["t_s"], busy, row["device_busy"]))
assert n >= 4, "only %d windows" % n
assert worst <= 0.02, "device_busy differs by %.4f" % worst
PY
ok $? "one track per worker; the trace's kernel union reproduces device_busy within 0.02 in every window"
diag "$TMP/out"

# Stopped by SIGTERM: still valid JSON.
"$BIN" --headless -n 1 -s 20000 -l 2 -i 0.2 -o /dev/null --trace "$TMP/term.json" &
pid=$!
wait_for 60 grep -qs '"cat":"kernel"' "$TMP/term.json"
kill -TERM $pid
wait $pid
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/term.json"
ok $? "the trace is valid JSON after SIGTERM"

# The limit bounds the file and says so.
"$BIN" --headless -n 1 -s 20000 -l 2 -i 0.2 -D 1.5 -o /dev/null --trace "$TMP/lim.json" --trace-limit 50
python3 - "$TMP/lim.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
assert sum(1 for e in ev if e.get("ph") == "X") <= 50
assert any("trace limit reached" in e.get("name", "") for e in ev)
PY
ok $? "--trace-limit 50: at most 50 intervals and a note that the limit was reached"
