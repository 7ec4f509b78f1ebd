#!/usr/bin/env bash
# test_prom.sh: the Prometheus exposition with the real tools. A headless run with --prom-file
# and --listen: promtool checks the file and what /metrics serves; a real Prometheus server
# (started here on loopback) scrapes --listen, and once it holds 20 s of the run answers every
# query of doc/prometheus.md, read from the doc with its [1m] ranges shortened to [20s]: rate()
# of the busy seconds is the log's device_busy over the same windows, the worker info carries
# a live worker's pid, the build info the binary's version; a client that sends half a request
# and stalls does not stop the windows; the dashboard serves and writes the same; bad --listen
# and --prom-file values (a port in use too) exit 2 before anything starts; a clean end removes
# the file.
# tier: fast, about 40 s
. "$(dirname "$0")/lib.sh"
ARGS=(-s 5000 -l 2 -i 0.25)
PROM_PID= STALL_PID=
TM=(tmux -S "$TMP/tmux.sock" -f /dev/null)

prom_cleanup() {
	for p in $PROM_PID $STALL_PID; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	stop_started
	"${TM[@]}" kill-server >/dev/null 2>&1
	tap_cleanup
}
on_exit prom_cleanup

# The port a run announced on standard error ("metrics on http://127.0.0.1:PORT/metrics").
port_of() { sed -n 's|.*metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' "$1" | head -1; }
announced() { [ -n "$(port_of "$1")" ]; }
# fetch PORT FILE: GET /metrics into FILE; fails unless the status is 200.
fetch() {
	python3 - "$1" "$2" 2>"$TMP/fetch.err" <<'PY'
import sys, urllib.request
with urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=10) as r:
    assert r.status == 200 and r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    open(sys.argv[2], "wb").write(r.read())
PY
}
# The scrape holds a positive symbols counter for every one of N workers.
counted() { fetch "$1" "$2" && [ "$(grep -cE '^gputop_decode_symbols_total\{.*\} [1-9][0-9]*$' "$2")" -eq "$3" ]; }
promcheck() { # promcheck DESCRIPTION FILE
	promtool check metrics <"$2" >"$TMP/promtool.out" 2>&1
	ok $? "$1"
	diag "$TMP/promtool.out"
}
# The port the Prometheus server took (it listens on port 0: a port picked beforehand could be
# taken meanwhile by a test running beside this one).
prom_port() { sed -n 's/.*msg="Listening on" address=127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$TMP/prometheus.log" | head -1; }
rows() { wc -l <"$1"; }
more_rows() { [ "$(rows "$1")" -ge "$2" ]; }
bad() { # bad DESCRIPTION EXPECTED-TEXT ARGS...
	local desc=$1 want=$2
	shift 2
	rm -f "$TMP/bad.log"
	"$BIN" --headless -n 1 -D 1 -o "$TMP/bad.log" "$@" >/dev/null 2>"$TMP/bad.err"
	local rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && grep -q -- "$want" "$TMP/bad.err" &&
		[ ! -e "$TMP/bad.log" ]
	ok $? "$desc: exit 2, one line, no log created (status $rc)"
	[ $rc -eq 2 ] || diag "$TMP/bad.err"
}

# ---- Bad --listen values, refused before the OpenCL device is used ----
bad "--listen with a host name" "is not an IP address" --listen localhost:9400
bad "--listen with port 65536" "the port is not a number" --listen 65536

device_from_here

# ---- Headless, both ways ----
# Calibrated, so that the doc's query of the share of the ceiling has a ceiling to divide by.
start prom "${ARGS[@]}" -n 2 -f jsonl --calibrate --prom-file "$TMP/m.prom" --listen 127.0.0.1:0
wait_for 120 announced "$TMP/prom.err"
ok $? "--listen port 0: the chosen port is announced on stderr"
PORT=$(port_of "$TMP/prom.err")

# A real Prometheus server scrapes it from now on: the queries below want RANGE seconds of history.
RANGE=20
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: gputop-decode
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address=127.0.0.1:0 >"$TMP/prometheus.log" 2>&1 &
PROM_PID=$!
wait_for 60 eval 'PPORT=$(prom_port); [ -n "$PPORT" ]'
ok $? "the Prometheus server listens (port ${PPORT:-none})"

wait_for 60 counted "$PORT" "$TMP/scrape.txt" 2
ok $? "GET /metrics: a positive symbols counter for each of the 2 workers"
promcheck "promtool check metrics passes on /metrics" "$TMP/scrape.txt"
check "no label value holds a space; states are identifiers" eval \
	"! grep -v '^#' '$TMP/scrape.txt' | grep -qE '=\"[^\"]* ' && grep -q 'state=\"no_opencl_calls_seen\"' '$TMP/scrape.txt'"
wait_for 30 grep -qs '^gputop_decode_symbols_total{worker="2",' "$TMP/m.prom"
ok $? "--prom-file is written"
promcheck "promtool check metrics passes on --prom-file" "$TMP/m.prom"
check "the file names both workers and their device, by identity and index" \
	test "$(grep -cE '^gputop_decode_batches_total\{worker="[12]",device="[^" ]+",index="[0-9]+:[0-9]+"\} ' "$TMP/m.prom")" -eq 2
check "the pid is a label of the worker info alone" test "$(grep -c 'pid=' "$TMP/m.prom")" -eq 2 -a \
	"$(grep -cE '^gputop_decode_worker_info\{worker="[12]",device="[^" ]+",index="[0-9:]+",pid="[0-9]+",source="worker",command=""\} 1$' "$TMP/m.prom")" -eq 2
check "the device's busy seconds are a counter" \
	grep -qx -e '# TYPE gputop_decode_device_busy_seconds_total counter' "$TMP/m.prom"
check "the gaps between batches are a histogram, up to +Inf" \
	grep -qE '^gputop_decode_gap_batch_seconds_bucket\{worker="1",device="[^" ]+",index="[0-9:]+",le="\+Inf"\} [0-9]+$' "$TMP/m.prom"
check "one build info" test "$(grep -c '^gputop_decode_build_info{version="' "$TMP/m.prom")" -eq 1

# Bad input while that run holds its port: nothing starts, nothing is written.
bad "--listen on a port in use" "Address already in use" --listen "127.0.0.1:$PORT"
bad "--prom-file in a missing directory" "No such file or directory" --prom-file "$TMP/none/m.prom"
bad "--prom-file on a directory" "not a regular file" --prom-file "$TMP"
bad "--prom-file on --output's file" "same file as --output" --prom-file "$TMP/bad.log"
check "a refused --prom-file leaves no temporary file" test -z "$(ls -A "$TMP" | grep -e '\.tmp\.' -e '^\.gputop-decode-prom\.')"

# ---- The doc's queries against the real Prometheus server ----
# history SECONDS: the server holds the run's window ends since more than SECONDS ago.
history() {
	python3 - "$PPORT" "$1" >"$TMP/history.out" 2>&1 <<'PY'
import json, sys, time, urllib.parse, urllib.request
q = urllib.parse.urlencode({"query": "gputop_decode_window_end_timestamp_seconds[5m]"})
with urllib.request.urlopen("http://127.0.0.1:%s/api/v1/query?%s" % (sys.argv[1], q), timeout=10) as r:
    res = json.load(r)["data"]["result"]
first = float(res[0]["values"][0][0])
print("history since", time.time() - first, "s")
assert time.time() - first > float(sys.argv[2])
PY
}
wait_for 300 history $((RANGE + 5))
ok $? "Prometheus scraped --listen for more than $((RANGE + 5)) seconds"
diag "$TMP/history.out" | tail -2
VERSION=$("$BIN" --version | awk '{ print $2 }')
WORKERS=$(ps -o pid= --ppid "$SUP" | tr -s ' \n' '  ')
# Every query of the doc's promql block, at one instant; each answer checked against the log.
# Prints one line per check: ok|DESCRIPTION|DETAIL or not ok|DESCRIPTION|DETAIL.
python3 - "$PPORT" "$ROOT/doc/prometheus.md" "$TMP/prom.log" "$VERSION" "$WORKERS" "$RANGE" >"$TMP/queries.out" 2>&1 <<'PY'
import json, sys, time, urllib.parse, urllib.request
port, doc, log, version, pids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], set(sys.argv[5].split())
R = int(sys.argv[6])  # the doc's [1m], shortened: the suite waits R seconds, not a minute

def api(query, t):
    q = urllib.parse.urlencode({"query": query, "time": "%.3f" % t})
    with urllib.request.urlopen("http://127.0.0.1:%s/api/v1/query?%s" % (port, q), timeout=30) as r:
        ans = json.load(r)
    assert ans["status"] == "success", ans
    return ans["data"]["result"]

def out(good, desc, detail=""):
    print("%s|%s|%s" % ("ok" if good else "not ok", desc, detail))

# Each scrape holds the counters up to the end of the latest window then, which the same scrape's
# gputop_decode_window_end_timestamp_seconds says. rate() divides what the counters gained
# between the first and the last scrape of its range by the time between those scrapes; the log
# says the same over the windows between their window ends. The two spans differ by how late
# each scrape came after its window's end, which a loaded machine can stretch: the instant
# chosen is the scrape whose range has the two spans closest (any scrape a range after the
# first qualifies; none depends on how fast anything ran).
END = "gputop_decode_window_end_timestamp_seconds"
hist = [(float(t), float(e)) for t, e in api(END + "[10m]", time.time())[0]["values"]]
best = None
for k in range(len(hist)):
    sk, ek = hist[k]
    if hist[0][0] > sk - R:
        continue  # not a whole range of history before it
    j = next(i for i in range(k + 1) if hist[i][0] > sk - R + 0.5)
    score = abs((ek - hist[j][1]) - (sk - hist[j][0]))
    if best is None or score <= best[0]:
        best = (score, sk)
T = best[1] + 0.5  # half a scrape after it: the range's ends fall between scrapes

block = open(doc).read().split("```promql\n", 1)[1].split("```", 1)[0]
queries = [l.strip().replace("[1m]", "[%ds]" % R) for l in block.splitlines()
           if l.strip() and not l.lstrip().startswith("#")]
results, bad = {}, []
for q in queries:
    try:
        results[q] = api(q, T)
        if not results[q]:
            bad.append(q + ": no series")
    except Exception as e:
        bad.append("%s: %s" % (q, e))
out(not bad and len(queries) >= 10, "every query of doc/prometheus.md (%d) answers with a series" % len(queries),
    "; ".join(bad))

def one(what, pred):
    found = [q for q in queries if pred(q)]
    if len(found) != 1 or not results.get(found[0]):
        out(False, "the doc's query of " + what + " answers", str(found))
        return None
    return results[found[0]]

# The windows whose figures the counters gained between the first and the last scrape of the
# range: those ending after the first scrape's window end, up to the last one's.
ends = api(END + "[%ds]" % R, T)[0]["values"]
e1, ek = float(ends[0][1]), float(ends[-1][1])
spans = "windows %.2f s, scrapes %.2f s" % (ek - e1, float(ends[-1][0]) - float(ends[0][0]))
rows = [json.loads(l) for l in open(log)]
agg = [r for r in rows if r.get("kind") == "aggregate" and e1 + 0.01 < r["unix_s"] <= ek + 0.01]
span = sum(r["window_s"] for r in agg)
if span > 0:
    # An empty device_busy (not measured) adds nothing to the counter: 0 here too.
    busy = sum(r.get("device_busy", 0) * r["window_s"] for r in agg) / span
    mbit = sum(r.get("mbit_s", 0) * r["window_s"] for r in agg) / span
else:
    busy = mbit = float("nan")

res = one("device busy", lambda q: "device_busy_seconds_total" in q and q.count("gputop_decode_") == 1)
if res:
    rate = float(res[0]["value"][1])
    out(len(res) == 1 and len(agg) >= 3 * R and abs(rate - busy) <= 0.02,
        "rate() of the busy seconds is the log's device_busy over the same windows, within 0.02",
        "rate %.4f, log %.4f over %d windows; %s" % (rate, busy, len(agg), spans))
res = one("Mbit/s", lambda q: "device_symbols_total" in q and "/ 1e6" in q)
if res:
    rate = float(res[0]["value"][1])
    out(len(res) == 1 and mbit > 0 and abs(rate - mbit) <= 0.05 * mbit,
        "rate() of the device's symbols / 1e6 is the log's mbit_s over the same windows, within 5%",
        "rate %.4f, log %.4f over %d windows; %s" % (rate, mbit, len(agg), spans))
dev = one("device phases", lambda q: "phase_batches_total" in q)
gen = one("generation", lambda q: 'phase="gen"' in q)
if dev and gen:
    by = {}
    for s in dev + gen:  # one-to-one matching drops the label ignored: gen's has no phase
        by.setdefault(s["metric"]["worker"], {})[s["metric"].get("phase", "gen")] = float(s["value"][1])
    out(sorted(by) == ["1", "2"] and all(len(v) == 7 and min(v.values()) >= 0 and v["kernel"] > 0 for v in by.values()),
        "each worker's mean per batch in each of the seven phases, the kernel's above 0", str(by))
res = one("worker info", lambda q: "gputop_decode_worker_info" in q)
if res:
    got = sorted(s["metric"].get("pid", "") for s in res)
    out(len(got) == 2 and set(got) <= pids and all(s["metric"].get("source") == "worker" for s in res),
        "the running workers' info carries the pids of the live worker processes",
        "%s of %s" % (got, sorted(pids)))
res = one("build info", lambda q: q == "gputop_decode_build_info")
if res:
    m = res[0]["metric"]
    out(len(res) == 1 and m.get("version") == version and m.get("platform") and m.get("driver") and res[0]["value"][1] == "1",
        "build info: 1, the binary's version %s, a platform and a driver" % version, str(m))
PY
[ -s "$TMP/queries.out" ] || echo "not ok|the queries ran|no output" >"$TMP/queries.out"
while IFS='|' read -r status desc detail; do
	case $status in
	ok) ok 0 "$desc" ;;
	"not ok") ok 1 "$desc" ;;
	*) ok 1 "query script: $status $desc $detail" ;;
	esac
	[ -n "${detail:-}" ] && echo "# $detail"
done <"$TMP/queries.out"
kill "$PROM_PID" && wait "$PROM_PID"
PROM_PID=

# ---- A client that sends half a request and stalls ----
python3 - "$PORT" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /metr")
time.sleep(60)
PY
STALL_PID=$!
sleep 0.5
n=$(rows "$TMP/prom.log")
wait_for 30 more_rows "$TMP/prom.log" $((n + 6))
ok $? "with a stalled client connected, windows keep coming (log rows grew past $((n + 6)))"
fetch "$PORT" "$TMP/scrape2.txt"
ok $? "... and another client is served meanwhile"
kill -INT "$SUP"
wait "$SUP"
ok $? "SIGINT ends the run with status 0, the stalled client still connected"
kill "$STALL_PID" && wait "$STALL_PID" 2>/dev/null
STALL_PID=
check "no segment is left" test "$(segments_of "$SUP")" -eq 0
check "no worker is left" test "$(children_of "$SUP")" -eq 0
check "nothing listens on the port after the run" ! fetch "$PORT" "$TMP/after.txt"
check "a clean end removes --prom-file (its values are no longer true), and no temporary file" \
	test ! -e "$TMP/m.prom" -a -z "$(ls -A "$TMP" | grep '^\.gputop-decode-prom\.')"

# ---- The dashboard exports the same ----
"${TM[@]}" new-session -d -s main -x 120 -y 40 \
	"'$BIN' ${ARGS[*]} -n 1 --listen :0 --prom-file '$TMP/dash.prom' 2>'$TMP/dash.err'; echo \$? >'$TMP/dash.rc'"
wait_for 60 announced "$TMP/dash.err"
ok $? "the dashboard announces its port"
DPORT=$(port_of "$TMP/dash.err")
wait_for 60 counted "$DPORT" "$TMP/dash.txt" 1
ok $? "the dashboard serves /metrics with its worker's symbols"
wait_for 30 grep -qs '^gputop_decode_symbols_total{worker="1",' "$TMP/dash.prom"
ok $? "the dashboard writes --prom-file"
"${TM[@]}" send-keys -t main q
wait_for 30 test -s "$TMP/dash.rc"
check "the dashboard quits with status 0" test "$(cat "$TMP/dash.rc" 2>/dev/null)" = 0
check "... and stops serving" ! fetch "$DPORT" "$TMP/after.txt"
check "... and removes its --prom-file" test ! -e "$TMP/dash.prom"
