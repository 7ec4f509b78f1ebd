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

# The log puts a batch's kernels in the window where the batch completed; the trace's union
# takes them where they ran. The two differ only by the kernel time of batches that cross a
# window's edge: that much is allowed on top of 0.02.
batches = {}
for e in events:
    if e.get("cat") == "kernel":
        batches.setdefault((e["pid"], e["args"]["batch"]), []).append((e["ts"], e["ts"] + e["dur"]))
worst, n = 0.0, 0
for row in log:
    if row["kind"] != "aggregate" or "device_busy" not in row:
        continue
    b = row["t_s"] * 1e6
    a = b - row["window_s"] * 1e6
    busy = union(kernels, a, b) / (b - a)
    crossing = [iv for ivs in batches.values() for edge in (a, b)
                if min(s for s, _ in ivs) < edge < max(e for _, e in ivs) for iv in ivs]
    slack = union(crossing, a, b) / (b - a)
    worst = max(worst, abs(busy - row["device_busy"]) - slack)
    n += 1
    print("# window ending %.1f s: trace %.4f, log %.4f, batches across its edges %.4f" %
          (row["t_s"], busy, row["device_busy"], slack))
assert n >= 4, "only %d windows" % n
assert worst <= 0.02, "device_busy differs by %.4f beyond the batches across the edges" % worst
PY
ok $? "one track per worker; the trace's kernel union reproduces device_busy within 0.02 in every window (beyond batches across its edges)"
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

# Killed by SIGKILL: the file holds whole lines (one event per line), and the one-liner of the
# man page and doc/fields.md turns it into valid JSON.
"$BIN" --headless -n 1 -s 20000 -l 2 -i 0.2 -o /dev/null --trace "$TMP/kill.json" &
pid=$!
wait_for 60 grep -qs '"cat":"kernel"' "$TMP/kill.json"
kill -KILL $pid
wait $pid 2>/dev/null
python3 - "$TMP/kill.json" >"$TMP/kill.out" 2>&1 <<'PY'
import json, sys
text = open(sys.argv[1]).read()
assert text.endswith("\n"), "the file ends mid-line: %r" % text[-80:]
lines = text.splitlines()
assert lines[0] == "[", "first line %r" % lines[0]
for n, line in enumerate(lines[1:], 2):
    assert line.endswith(","), "line %d is not one event and a comma: %r" % (n, line[-80:])
    json.loads(line[:-1])
print("# %d whole events" % (len(lines) - 1))
PY
ok $? "after SIGKILL the trace ends with a whole line, one event per line"
diag "$TMP/kill.out"
python3 -c 'import sys; t = open(sys.argv[1]).read(); print(t[:max(t.rfind("},\n") + 1, 1)] + "\n]")' \
	"$TMP/kill.json" >"$TMP/fixed.json"
python3 -c 'import json,sys; assert any(e.get("cat") == "kernel" for e in json.load(open(sys.argv[1])))' "$TMP/fixed.json"
ok $? "the documented one-liner makes it valid JSON with its kernel events"

# Standard output closed: the trace never takes descriptor 1, so the log cannot land in it.
"$BIN" --headless -n 1 -s 20000 -l 2 -i 0.2 -D 1 --trace "$TMP/closed.json" >&- 2>"$TMP/closed.err"
ok $? "a run with standard output closed exits 0"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/closed.json" 2>"$TMP/closed.out" &&
	! grep -q 't_s,kind' "$TMP/closed.json"
ok $? "its trace is valid JSON without the log inside"
diag "$TMP/closed.out" "$TMP/closed.err"

# Every output is created the same way: 0644 less the umask, also under umask 000.
(umask 000 && "$BIN" --headless -n 1 -s 20000 -l 2 -i 0.2 -D 0.5 -o "$TMP/u.csv" --trace "$TMP/u.json")
modes="$(stat -c %a "$TMP/u.csv") $(stat -c %a "$TMP/u.json")"
check "umask 000: the log and the trace are both created 644 ($modes)" test "$modes" = "644 644"
