#!/usr/bin/env bash
# test_prom.sh: the Prometheus exposition with the real tools. A headless run with --prom-file
# and --listen: promtool checks the file and what /metrics serves; a real Prometheus server
# (started here on loopback) scrapes --listen and answers a query for the symbols counter; a
# client that sends half a request and stalls does not stop the windows; the dashboard serves
# and writes the same; bad --listen and --prom-file values (a port in use too) exit 2 before
# anything starts.
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
trap prom_cleanup EXIT

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
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
rows() { wc -l <"$1"; }
more_rows() { [ "$(rows "$1")" -ge "$2" ]; }

# ---- Headless, both ways ----
start prom "${ARGS[@]}" -n 2 --prom-file "$TMP/m.prom" --listen 127.0.0.1:0
wait_for 60 announced "$TMP/prom.err"
ok $? "--listen port 0: the chosen port is announced on stderr"
PORT=$(port_of "$TMP/prom.err")
wait_for 60 counted "$PORT" "$TMP/scrape.txt" 2
ok $? "GET /metrics: a positive symbols counter for each of the 2 workers"
promcheck "promtool check metrics passes on /metrics" "$TMP/scrape.txt"
wait_for 30 grep -qs '^gputop_decode_symbols_total{worker="2",' "$TMP/m.prom"
ok $? "--prom-file is written"
promcheck "promtool check metrics passes on --prom-file" "$TMP/m.prom"
check "the file names the device and both workers" \
	test "$(grep -cE '^gputop_decode_batches_total\{worker="[12]",pid="[0-9]+",device="[0-9]+:[0-9]+"\} ' "$TMP/m.prom")" -eq 2

# Bad input while that run holds its port: nothing starts, nothing is written.
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
bad "--listen on a port in use" "Address already in use" --listen "127.0.0.1:$PORT"
bad "--listen with a host name" "is not an IP address" --listen localhost:9400
bad "--listen with port 65536" "the port is not a number" --listen 65536
bad "--prom-file in a missing directory" "No such file or directory" --prom-file "$TMP/none/m.prom"
bad "--prom-file on a directory" "not a regular file" --prom-file "$TMP"
bad "--prom-file on --output's file" "same file as --output" --prom-file "$TMP/bad.log"
check "a refused --prom-file leaves no temporary file" test -z "$(ls -A "$TMP" | grep -e '\.tmp\.' -e '^\.gputop-decode-prom\.')"

# ---- A real Prometheus server scrapes --listen ----
PPORT=$(free_port)
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: gputop-decode
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" >"$TMP/prometheus.log" 2>&1 &
PROM_PID=$!
queried() {
	python3 - "$PPORT" >"$TMP/query.out" 2>&1 <<'PY'
import json, sys, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?query=gputop_decode_symbols_total" % sys.argv[1]
with urllib.request.urlopen(url, timeout=10) as r:
    ans = json.load(r)
res = ans["data"]["result"]
print(res)
assert ans["status"] == "success" and len(res) == 2
assert all(float(s["value"][1]) > 0 and s["metric"]["job"] == "gputop-decode" for s in res)
assert sorted(s["metric"]["worker"] for s in res) == ["1", "2"]
PY
}
wait_for 90 queried
ok $? "Prometheus scraped --listen: its query API returns both workers' symbols, above 0"
[ -s "$TMP/query.out" ] && diag "$TMP/query.out" | tail -3
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
check "the last --prom-file stays, and no temporary file" \
	test -s "$TMP/m.prom" -a -z "$(ls "$TMP" | grep '^m\.prom\.tmp')"
promcheck "the file left is still well formed" "$TMP/m.prom"

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
