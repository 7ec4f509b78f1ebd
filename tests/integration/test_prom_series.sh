#!/usr/bin/env bash
# test_prom_series.sh: the series an observed program gives Prometheus stay bounded while its
# processes come and go. The program is a shell loop (no OpenCL call of its own) that starts
# two short OpenCL processes at a time (cl_counts), again and again; a real Prometheus server
# scrapes --listen every second. Once the log shows six or more of those processes and the
# server holds 10 s of history: every series the server ever saw of the program is in its
# latest scrape (none came and went), they are labelled by copy (copy="1", never a worker id),
# the copy's counters never went back (resets() is 0) and its batches are the log's; promtool
# finds nothing to say of /metrics. The program's end ends the run with status 0, and the
# --prom-file is removed with nothing of the run left.
# tier: device, about 40 s
. "$(dirname "$0")/lib.sh"
CNT="$FIXTURES/cl_counts" # make fixtures
PROM_PID=

series_cleanup() {
	[ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
	touch "$TMP/stop"
	stop_started
	tap_cleanup
}
on_exit series_cleanup

check "the C test program is built" test -x "$CNT"
device_from_here

port_of() { sed -n 's|.*metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' "$1" | head -1; }
announced() { [ -n "$(port_of "$1")" ]; }
prom_port() { sed -n 's/.*msg="Listening on" address=127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$TMP/prometheus.log" | head -1; }
# How many observed processes the log has rows of.
processes() { grep '"kind":"worker"' "$TMP/run.log" 2>/dev/null | grep -o '"id":[0-9]*' | sort -u | wc -l; }
# api QUERY: the answer of the Prometheus server's query API at this instant, as JSON.
api() {
	python3 - "$PPORT" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
q = urllib.parse.urlencode({"query": sys.argv[2]})
with urllib.request.urlopen("http://127.0.0.1:%s/api/v1/query?%s" % (sys.argv[1], q), timeout=30) as r:
    print(json.dumps(json.load(r)["data"]["result"]))
PY
}
# scalar QUERY: the query's one value, or "none".
scalar() { api "$1" | python3 -c 'import json, sys; r = json.load(sys.stdin); print(r[0]["value"][1] if len(r) == 1 else "none")'; }
history() { [ "$(scalar 'count_over_time(gputop_decode_window_seconds[5m])')" -ge 10 ] 2>/dev/null; }

# The program: two processes at a time, each a few batches long, until $TMP/stop exists.
"$BIN" --headless -i 0.25 -f jsonl -o "$TMP/run.log" --listen 127.0.0.1:0 --prom-file "$TMP/m.prom" \
	-- sh -c 'while [ ! -e "$0" ]; do "$1" 4 2 & "$1" 3 2; wait; done' "$TMP/stop" "$CNT" 2>"$TMP/run.err" &
SUP=$!
SUPS+=("$SUP")
wait_for 120 announced "$TMP/run.err"
ok $? "--listen port 0: the chosen port is announced"
PORT=$(port_of "$TMP/run.err")
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

wait_for 240 eval '[ "$(processes)" -ge 7 ] && history'
ok $? "six processes or more of the program came and went ($(processes) rows), 10 s of history"

# ever: how many series of the program the server has seen in the last 5 minutes (its series API).
ever() {
	python3 - "$PPORT" <<'PY'
import json, sys, time, urllib.parse, urllib.request
q = urllib.parse.urlencode({"match[]": '{__name__=~"gputop_decode_.+",copy!=""}', "start": time.time() - 300})
with urllib.request.urlopen("http://127.0.0.1:%s/api/v1/series?%s" % (sys.argv[1], q), timeout=30) as r:
    print(len(json.load(r)["data"]))
PY
}
NOW=$(scalar 'count({__name__=~"gputop_decode_.+",copy!=""})')
EVER=$(ever)
check "every series of the program the server ever saw is in its latest scrape ($EVER, $NOW now)" \
	test "$NOW" != none -a "$NOW" = "$EVER"
check "the program's series are by copy (copy=\"1\"), none by an observed process's worker id" \
	test "$(scalar 'count(gputop_decode_worker_info{source="observed",copy="1",worker=""})')" = 1 -a \
	"$(scalar 'count(gputop_decode_worker_info{source="observed",worker!=""})')" = none
R='[5m]'
check "the copy's counters never went back as its processes ended" \
	test "$(scalar "resets(gputop_decode_batches_total{copy=\"1\"}$R) + resets(gputop_decode_symbols_total{copy=\"1\"}$R) + resets(gputop_decode_kernel_seconds_total{copy=\"1\"}$R)")" = 0
check "the copy's state set counts its processes: the shell's, with no OpenCL call" \
	test "$(scalar 'gputop_decode_worker_state{copy="1",state="no_opencl_calls_seen"}')" -ge 1 2>/dev/null

python3 - "$PORT" "$TMP/scrape.txt" <<'PY'
import sys, urllib.request
with urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=10) as r:
    open(sys.argv[2], "wb").write(r.read())
PY
promtool check metrics <"$TMP/scrape.txt" >"$TMP/promtool.out" 2>&1
ok $? "promtool check metrics passes on /metrics with the copy's series"
diag "$TMP/promtool.out"

# The copy's batches in a scrape are those of the log's rows of its processes, at the same window.
touch "$TMP/stop"
wait_for 120 gone "$SUP"
wait "$SUP"
ok $? "the program's end ends the run, status 0"
python3 - "$TMP/run.log" "$TMP/scrape.txt" >"$TMP/sum.out" 2>&1 <<'PY'
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
t = open(sys.argv[2]).read()
end = float(re.search(r"^gputop_decode_window_end_timestamp_seconds (\S+)$", t, re.M).group(1))
last = {}
for r in rows:
    if r.get("kind") == "worker" and r["unix_s"] <= end + 1e-6:
        last[r["id"]] = r.get("batches", 0)
# copy="0": processes found only once they had ended, whose group could not be read any more
got = sum(float(v) for v in re.findall(r'^gputop_decode_batches_total\{copy="[0-9]+",[^}]*\} (\S+)$', t, re.M))
print("scrape", got, "log", sum(last.values()), "over", len(last), "processes")
# A process's counter keeps the batches it completed after its last row in the log (its row goes
# once it has ended and been read to its end): the scrape holds at least the log's, a few more.
assert sum(last.values()) <= got <= sum(last.values()) + len(last)
PY
ok $? "the copy's batches are its processes' in the log, ended ones included"
diag "$TMP/sum.out"
check "the --prom-file is removed at the end" test ! -e "$TMP/m.prom"
check "no segment is left" test "$(segments_of "$SUP")" -eq 0
