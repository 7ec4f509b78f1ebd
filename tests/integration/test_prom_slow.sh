#!/usr/bin/env bash
# test_prom_slow.sh: slow clients never lock a scraper out of --listen. 40 clients on 127.0.0.1
# each send a request one byte a second (and connect again whenever the server drops them),
# more than the 32 connections one address may hold; meanwhile a scraper on the same address
# asks for /metrics 10 times over about 5 s and every answer must be 200 with the metrics.
# Then 100 such clients from five other loopback addresses, more than the 64 connections the
# server holds in all, and the same 10 scrapes. Each scrape first counts the slow connections
# the server holds (its own sockets, from ss), so that the slots are shown to be taken.
# tier: device, about 20 s
. "$(dirname "$0")/lib.sh"
SLOW_PID=

slow_cleanup() {
	[ -n "$SLOW_PID" ] && kill "$SLOW_PID" 2>/dev/null && wait "$SLOW_PID" 2>/dev/null
	stop_started
	tap_cleanup
}
on_exit slow_cleanup

port_of() { sed -n 's|.*metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' "$1" | head -1; }
announced() { [ -n "$(port_of "$1")" ]; }

# slow.py PORT PID N ADDRS SCRAPES: N clients spread over ADDRS (comma-separated) each send a
# request a byte a second, connecting again when dropped. Once the server (PID) holds enough of
# them, SCRAPES scrapes from 127.0.0.1, half a second apart. Prints per scrape "held K" (the slow
# connections the server held just before) and "scrape STATUS" (200 with the metrics, or what
# went wrong); then "opened M" (the slow clients' connections in all).
cat >"$TMP/slow.py" <<'PY'
import socket, subprocess, sys, threading, time, urllib.request
port, pid, n, addrs, scrapes = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4].split(","), int(sys.argv[5])
REQ = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
stop, opened, lock = threading.Event(), [0], threading.Lock()

def client(addr):
    s, i = None, 0
    while not stop.is_set():
        if s is None:
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(addr, 0))
                i = 0
                with lock:
                    opened[0] += 1
            except OSError:
                stop.wait(0.2)
                continue
        try:
            s.send(REQ[i % len(REQ):i % len(REQ) + 1])
            i += 1
        except OSError:
            s.close()
            s = None
            continue
        stop.wait(1)
    if s is not None:
        s.close()

def held():
    """The server's own established connections from the slow clients' addresses."""
    out = subprocess.run(["ss", "-Htnp", "state", "established", "( sport = :%d )" % port],
                         capture_output=True, text=True).stdout
    return sum(1 for l in out.splitlines()
               if "pid=%s," % pid in l and l.split()[3].rsplit(":", 1)[0] in addrs)

threads = [threading.Thread(target=client, args=(addrs[k % len(addrs)],)) for k in range(n)]
for t in threads:
    t.start()
want = min(n, 32 * len(addrs), 60)
t0 = time.time()
while held() < want and time.time() - t0 < 30:
    time.sleep(0.2)
for _ in range(scrapes):
    print("held", held(), flush=True)
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
            body = r.read()
            good = r.status == 200 and b"\ngputop_decode_build_info{" in body
            print("scrape", "200" if good else "status %d, %d bytes" % (r.status, len(body)), flush=True)
    except Exception as e:
        print("scrape", repr(e).replace("\n", " "), flush=True)
    time.sleep(0.5)
stop.set()
for t in threads:
    t.join()
print("opened", opened[0])
PY

# phase NAME N ADDRS LEAST MOST: the scrapes with N slow clients from ADDRS. The server holds
# at most MOST of them at every scrape (its limits still hold), and LEAST or more at one scrape
# at least (they fill what they may take; one dropped for a scrape comes back a second later).
phase() {
	local name=$1 n=$2 addrs=$3 least=$4 most=$5
	python3 "$TMP/slow.py" "$PORT" "$SUP" "$n" "$addrs" 10 >"$TMP/$name.out" 2>&1 &
	SLOW_PID=$!
	wait "$SLOW_PID"
	SLOW_PID=
	local good held top
	good=$(grep -cx 'scrape 200' "$TMP/$name.out")
	held=$(awk '$1 == "held" { printf " %s", $2 }' "$TMP/$name.out")
	top=$(awk '$1 == "held" && $2 > top { top = $2 } END { print top + 0 }' "$TMP/$name.out")
	check "$n slow clients from $addrs: the server holds up to $most of them, $least at a scrape (at each:$held)" \
		test "$(wc -w <<<"$held")" -eq 10 -a "$top" -ge "$least" -a "$top" -le "$most"
	check "... and every one of 10 scrapes from 127.0.0.1 answers 200 with the metrics ($good)" \
		test "$good" -eq 10
	[ "$good" -eq 10 ] || diag "$TMP/$name.out"
}

start run -n 0 -i 0.2 --listen 127.0.0.1:0
wait_for 60 announced "$TMP/run.err"
ok $? "--listen 127.0.0.1:0: the port is announced"
PORT=$(port_of "$TMP/run.err")

# One address: its share is 32, and the slow clients fill it.
phase same 40 127.0.0.1 32 32
# Five other addresses, 20 each: the server's 64 slots fill up (all but one, kept free).
phase many 100 127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5,127.0.0.6 60 63

kill -INT "$SUP"
wait "$SUP"
ok $? "SIGINT ends the run with status 0"
check "no segment is left" test "$(segments_of "$SUP")" -eq 0
