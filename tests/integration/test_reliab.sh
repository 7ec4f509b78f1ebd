#!/usr/bin/env bash
# test_reliab.sh: what a hostile local user or a stalled reader could do to a run, one section
# per class of doc/RELIABILITY.md ("Other users, blocked outputs, helper children"): outputs
# nobody reads, a terminal stopped with Ctrl-S, signals while helper children run, files and
# names planted by another uid, deaths hidden in sweeps, and inputs of every size. Every wait is
# bounded; nothing asserts on speed.
# tier: fast, about 55 s
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/screen.sh"
W=(-s 20000 -l 2) # a small workload: the machine may be a loaded 2-core box
DPID=

rel_cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait_for 10 gone "$DPID"
	"${TM[@]}" kill-server >/dev/null 2>&1
	stop_started
	tap_cleanup
}
on_exit rel_cleanup

# batches PROMFILE: the sum of the workers' batch counters in the Prometheus file.
batches() { awk '/^gputop_decode_batches_total/ { s += $2 } END { print s + 0 }' "$1" 2>/dev/null; }
# advances PROMFILE: the batch count grows over the next second and more (bounded).
advances() {
	local b0
	b0=$(batches "$1")
	wait_for 20 eval '[ "$(batches "'"$1"'")" -gt "'"$b0"'" ]'
}
# ended_within SECONDS PID: the process is gone within the bound.
ended_within() { wait_for "$1" gone "$2"; }
# bad2 DESCRIPTION PATTERN ARGS...: the command line is refused at once, status 2, one line.
bad2() {
	local desc=$1 pat=$2
	shift 2
	timeout 60 "$BIN" --headless -n 1 -s 1000 -l 1 -D 1 -o "$TMP/bad.log" "$@" >/dev/null 2>"$TMP/bad.err"
	ok $([ $? -eq 2 ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && grep -q -- "$pat" "$TMP/bad.err"; echo $?) \
		"$desc: status 2, one line ($(head -c 160 "$TMP/bad.err"))"
}

# ---- refused before the OpenCL device is used: 6. --kernel that is no regular file; 13.
# --listen on a broadcast or multicast address ----
mkfifo "$TMP/k.fifo"
bad2 "--kernel on a FIFO" "not a regular file (a FIFO)" --kernel "$TMP/k.fifo"
bad2 "--kernel /dev/zero" "not a regular file (a device)" --kernel /dev/zero
bad2 "--kernel on a directory" "not a regular file (a directory)" --kernel "$TMP"
for a in 224.0.0.1:0 255.255.255.255:0 '[ff02::1]:0'; do
	bad2 "--listen $a" "broadcast or multicast" --listen "$a"
done

device_from_here

# ---- 3. no output stops observation or the answer to a signal ----
# A log into a pipe nobody reads: observation goes on (the Prometheus file keeps counting),
# SIGTERM is answered, and what could not be written is counted and said.
mkfifo "$TMP/stall.fifo"
exec 7<>"$TMP/stall.fifo" # held open, never read
"$BIN" --headless "${W[@]}" -i 0.05 -n 2 -f jsonl --prom-file "$TMP/stall.prom" >"$TMP/stall.fifo" \
	2>"$TMP/stall.err" &
SUP=$!
SUPS+=("$SUP")
# writer_blocked PID: one of its threads waits in a write to the pipe (the pipe is full).
writer_blocked() { cat /proc/"$1"/task/*/wchan 2>/dev/null | grep -q pipe_write; }
wait_for 30 test -s "$TMP/stall.prom"
wait_for 60 writer_blocked "$SUP"
ok $? "the log's pipe is full: its writer waits"
check "a log into a pipe nobody reads: the rings are still read" advances "$TMP/stall.prom"
kill -TERM "$SUP"
check "... SIGTERM ends the run within 20 s" ended_within 20 "$SUP"
wait "$SUP" 2>/dev/null
ok $([ $? -eq 1 ]; echo $?) "... exit status 1: the log is incomplete"
check "... the lines not written are counted" grep -qE "the log: [0-9]+ lines not written" "$TMP/stall.err"
check "... no worker and no segment left" test "$(segments_of "$SUP")" -eq 0 -a "$(children_of "$SUP")" -eq 0
exec 7<&-

# The dashboard in a terminal stopped with Ctrl-S: the same, and the terminal is restored.
"${TM[@]}" new-session -d -x 100 -y 30 -s main "env PS1='$ ' bash --norc --noprofile"
SHPID=$("${TM[@]}" display -p -t main '#{pane_pid}')
keys "clear; $BIN ${W[*]} -i 0.1 --prom-file $TMP/dash.prom; echo END=\$? FLOW=\$(stty -a | grep -ow -- '-\?ixon')" Enter
wait_for 20 find_dash
see "the dashboard draws" 30 screen_has "elapsed"
keys C-s
sleep 1
check "a terminal stopped with Ctrl-S: the rings are still read" advances "$TMP/dash.prom"
kill -TERM "$DPID"
check "... SIGTERM ends the dashboard within 20 s" ended_within 20 "$DPID"
see "... with status 0, flow control (ixon) given back" 20 screen_has "^END=0 FLOW=ixon\$"
DPID=

# ---- 5. every helper child ends with the supervisor; signals are handled from the start ----
# A kernel whose build takes seconds keeps the device probe (a forked child) busy.
python3 - "$TMP/slow.cl" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("kernel void slow(global float *out, uint n)\n{\n\tuint i = (uint)get_global_id(0);\n")
    f.write("\tif (i >= n)\n\t\treturn;\n\tfloat x = (float)i;\n")
    for k in range(8000):
        f.write("\tx = sin(x * 1.0001f + %d.5f) * cos(x + %d.0f);\n" % (k, k))
    f.write("\tout[i] = x;\n}\n")
PY
# ended PID: not running (a zombie waiting for its new parent counts as ended).
ended() { ! ps -o stat= -p "$1" 2>/dev/null | grep -qv Z; }
# probe_of SUP: waits (bounded) for SUP's first child; sets KID.
probe_of() {
	local i
	for ((i = 0; i < 600; i++)); do
		KID=$(pgrep -P "$1" | head -1)
		[ -n "$KID" ] && return 0
		sleep 0.05
	done
	return 1
}
for sig in TERM KILL; do
	POCL_CACHE_DIR="$TMP/pocl-$sig" "$BIN" --headless --kernel "$TMP/slow.cl" -n 1 -s 100 \
		>"$TMP/probe.out" 2>"$TMP/probe.err" &
	SUP=$!
	probe_of "$SUP"
	ok $? "SIG$sig during a slow device probe: the probe runs"
	sleep 0.5
	kill -"$sig" "$SUP"
	check "... the supervisor ends within 20 s" ended_within 20 "$SUP"
	wait "$SUP" 2>/dev/null
	rc=$?
	[ "$sig" = TERM ] && ok $([ $rc -eq 0 ] && [ ! -s "$TMP/probe.err" ]; echo $?) "... status 0, nothing said, nothing started"
	check "... the probe ends within 10 s" wait_for 10 ended "$KID"
done

# The ceiling child of --calibrate, measuring a kernel that does not end in any useful time.
ENDLESS=(--kernel "$ROOT/kernels/examples/compute.cl" --build-options -DITERS=2000000000 -s 3000 -l 1)
for sig in INT QUIT KILL; do # TERM and HUP share their handler
	"$BIN" --headless "${ENDLESS[@]}" --calibrate -n 1 -o "$TMP/cal.log" 2>"$TMP/cal.err" &
	SUP=$!
	wait_for 60 eval 'pgrep -P '"$SUP"' -f -- --calibrate-child >/dev/null'
	ok $? "--calibrate, SIG$sig: the ceiling child measures"
	KID=$(pgrep -P "$SUP" -f -- --calibrate-child | head -1)
	sleep 0.5
	kill -"$sig" "$SUP"
	check "... the supervisor ends within 20 s" ended_within 20 "$SUP"
	wait "$SUP" 2>/dev/null
	rc=$?
	[ "$sig" != KILL ] && ok $rc "... status 0"
	check "... the ceiling child ends within 10 s" wait_for 10 ended "$KID"
done

# ---- 7. a worker that dies during a sweep step is reported; 15. an interrupted sweep is 0 ----
# Two steps of one worker: the second keeps the first's worker, which dies as it is measured.
ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0" "$BIN" --sweep 1,1 -D 3 -i 0.2 "${W[@]}" \
	>"$TMP/sw.table" 2>"$TMP/sw.err" &
SUP=$!
SUPS+=("$SUP")
wait_for 60 grep -q "sweep 1/2" "$TMP/sw.err"
for ((i = 0; i < 50; i++)); do
	K=$(pgrep -f -- "--worker=/gputop-decode\.$UID_\.$SUP\." | head -1)
	[ -n "$K" ] && kill -SEGV "$K" 2>/dev/null
	ended "$SUP" && break
	sleep 0.2
done
check "a worker killed by SIGSEGV in a sweep step ends the sweep" ended_within 30 "$SUP"
wait "$SUP" 2>/dev/null
ok $([ $? -eq 1 ]; echo $?) "... with status 1"
check "... saying which worker and why" grep -q "sweep: step 1x1: worker [0-9]* (pid [0-9]*) failed: killed by SIGSEGV" "$TMP/sw.err"
check "... the step measured before it is in the table, the broken one is not" \
	test "$(grep -cE '^ +1 +1 ' "$TMP/sw.table")" -eq 1

"$BIN" --sweep 1,2 -D 3 -i 0.2 "${W[@]}" >"$TMP/int.table" 2>"$TMP/int.err" &
SUP=$!
wait_for 60 grep -q "sweep 1/2" "$TMP/int.err"
kill -INT "$SUP"
check "an interrupted sweep ends within 20 s" ended_within 20 "$SUP"
wait "$SUP" 2>/dev/null
ok $? "... with status 0, as doc/RELIABILITY.md says"
check "... its table holds the step it measured" grep -qE '^ +1 +1 ' "$TMP/int.table"

# ---- another uid: 1. files next to a user path, 2. names known before they exist ----
OTHER=
if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null && command -v setpriv >/dev/null; then
	OTHER=gdrel$$
	add_user -M -N -s /usr/sbin/nologin "$OTHER" || OTHER=
fi
other_cleanup() { # the other user only ever runs in the foreground: nothing of it is left
	[ -n "$OTHER" ] && del_user "$OTHER"
	rel_cleanup
}
on_exit other_cleanup
as_other() { setpriv --reuid="$OTHER" --regid="$(id -g "$OTHER")" --clear-groups -- "$@"; }
if [ -z "$OTHER" ]; then
	ok 0 "# SKIP another uid: not root, or no useradd/setpriv"
else
	chmod o+x "$TMP" # the other user reaches pub/ only
	mkdir -m 1777 "$TMP/pub"
	# The names the old --prom-file used (FILE.tmp.PID) for the next 400 pids, planted as FIFOs
	# and 0666 files by the other user.
	last=$(cat /proc/sys/kernel/ns_last_pid)
	as_other /usr/bin/python3 -c 'import os, sys
os.umask(0)
for p in range(int(sys.argv[2]), int(sys.argv[2]) + 400):
    name = "%s/pub/m.prom.tmp.%d" % (sys.argv[1], p)
    if p % 2:
        os.mkfifo(name, 0o666)
    else:
        os.close(os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))' "$TMP" "$last"
	check "the other user planted 400 names" test "$(find "$TMP/pub" -user "$OTHER" | wc -l)" -eq 400
	umask 022
	"$BIN" --headless "${W[@]}" -i 0.2 -n 1 -o /dev/null --prom-file "$TMP/pub/m.prom" 2>"$TMP/pub.err" &
	SUP=$!
	SUPS+=("$SUP")
	wait_for 30 test -s "$TMP/pub/m.prom"
	check "another uid's FIFOs and files beside --prom-file: it is written and updated" advances "$TMP/pub/m.prom"
	check "... the file is ours, mode 644" test "$(stat -c '%U %a' "$TMP/pub/m.prom")" = "$(id -un) 644"
	kill -TERM "$SUP"
	check "... SIGTERM ends the run within 20 s" ended_within 20 "$SUP"
	wait "$SUP" 2>/dev/null
	ok $? "... status 0"
	check "... and removed at the end" test ! -e "$TMP/pub/m.prom"
	check "... no temporary file of ours left" test -z "$(find "$TMP/pub" -user "$(id -u)" ! -name m.prom -type f)"

	# The other user squats every worker's segment name as soon as its command line shows it.
	"$BIN" --headless "${W[@]}" -i 0.2 -n 2 -f jsonl -o "$TMP/squat.log" 2>"$TMP/squat.err" &
	SUP=$!
	SUPS+=("$SUP")
	squatted=0
	for ((i = 0; i < 300; i++)); do
		for seg in $(pgrep -af -- "--worker=/gputop-decode\.$UID_\.$SUP\." |
			sed -n 's|.*--worker=/\([^,]*\),.*|\1|p'); do
			as_other mkfifo -m 666 "/dev/shm/$seg" 2>/dev/null && squatted=$((squatted + 1))
		done
		[ "$(workers_of "$SUP")" -ge 2 ] && [ $i -gt 5 ] && break
		sleep 0.01
	done
	ok $squatted "another uid squatting the worker names from their command lines makes nothing"
	wait_for 60 eval '[ "$(grep -c "\"state\":\"running\"" "$TMP/squat.log")" -ge 2 ]'
	ok $? "... both workers run"
	kill -TERM "$SUP"
	wait "$SUP" 2>/dev/null
	ok $? "... and the run ends with status 0"

	as_other mkfifo -m 666 "$TMP/pub/log"
	timeout 20 "$BIN" --headless "${W[@]}" -n 1 -o "$TMP/pub/log" 2>"$TMP/pubfifo.err"
	ok $([ $? -eq 2 ]; echo $?) "another uid's FIFO at -o: refused at once, status 2"
	check "... saying so in one line" test "$(cat "$TMP/pubfifo.err")" = \
		"gputop-decode: --output: cannot open '$TMP/pub/log': a FIFO that nobody reads"
fi

# ---- 14. sizes the device or the convention cannot take (6: at the top) ----
printf 'kernel void t(global float *out, local float *tmp, uint n)\n{\n\tuint i = get_global_id(0);\n\ttmp[get_local_id(0)] = i;\n\tif (i < n)\n\t\tout[i] = tmp[get_local_id(0)];\n}\n' >"$TMP/local.cl"
bad2 "local memory beyond the device's" "more than the device's" --kernel "$TMP/local.cl" --arg tmp=1073741824
bad2 "a len: buffer smaller than N" "pass at least len:1000" --kernel "$ROOT/kernels/examples/saxpy.cl" \
	--arg a=2 --arg x=len:10

# ---- 8. --build-options of any length; 11. OpenCL answers of any size ----
# runs DESCRIPTION ARGS...: a three-second run of one worker (a loaded host takes a second or
# more to build and start it) that ends with status 0 and a running worker in its log.
runs() {
	local desc=$1
	shift
	timeout 120 "$BIN" --headless -n 1 -s 1000 -l 1 -i 0.2 -D 3 -f jsonl -o "$TMP/runs.log" "$@" 2>"$TMP/runs.err"
	ok $([ $? -eq 0 ] && grep -q '"state":"running"' "$TMP/runs.log"; echo $?) "$desc ($(head -c 120 "$TMP/runs.err"))"
}
printf '#ifndef MUST\n#error the options were cut\n#endif\nkernel void k(global float *out, uint n)\n{\n\tuint i = get_global_id(0);\n\tif (i < n)\n\t\tout[i] = i;\n}\n' >"$TMP/must.cl"
runs "--build-options of 3000 bytes are passed whole" --kernel "$TMP/must.cl" \
	--build-options "$(printf -- '-DPAD%d=1 ' $(seq 1 300)) -DMUST=1"
long=k$(printf 'x%.0s' $(seq 1 69))
printf 'kernel void %s(global float *out, uint %s)\n{\n\tuint i = get_global_id(0);\n\tif (i < %s)\n\t\tout[i] = i;\n}\n' \
	"$long" "n$(printf 'y%.0s' $(seq 1 70))" "n$(printf 'y%.0s' $(seq 1 70))" >"$TMP/long.cl"
runs "a 70-character kernel name and a 71-character argument name" --kernel "$TMP/long.cl" \
	--arg "n$(printf 'y%.0s' $(seq 1 70))=1000"
check "... the log names the kernel whole" grep -q "\"kernel\":\"$long\"" "$TMP/runs.log"
python3 -c 'print("".join("kernel void k%d(global float *o) { o[0] = %d; }\n" % (i, i) for i in range(1000)))' >"$TMP/many.cl"
bad2 "1000 kernels without --kernel-name: all listed" "has 1000 kernels (k0, k1, k2, " --kernel "$TMP/many.cl"
python3 -c 'print("kernel void k(global float *o)\n{\n" + "".join("\to[0] = undefined_%d;\n" % i for i in range(400)) + "}")' >"$TMP/log.cl"
timeout 120 "$BIN" --headless -n 1 -s 1000 -D 1 --kernel "$TMP/log.cl" >/dev/null 2>"$TMP/log.err"
ok $([ $? -eq 1 ] && grep -q "undefined_0" "$TMP/log.err" && ! grep -q "(empty)" "$TMP/log.err"; echo $?) \
	"a build log over 16 KiB is shown, not '(empty)'"

# ---- 12. no client holds /metrics: slow clients and a descriptor limit ----
# hold.py PORT N SECONDS: N connections that send a request one byte a second; then a scrape
# is tried every second until one answers. Prints "scraped AFTER_S" and "closed K" (the
# trickling connections the server closed).
cat >"$TMP/hold.py" <<'PY'
import socket, sys, time, urllib.request
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
conns = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.send(b"G")
    conns.append(s)
t0, scraped, closed = time.time(), None, set()
while time.time() - t0 < secs:
    for i, s in enumerate(conns):
        if i in closed:
            continue
        try:
            s.send(b"E")
        except OSError:
            closed.add(i)
    if scraped is None:
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=1) as r:
                if r.status == 200 and b"gputop_decode_" in r.read():
                    scraped = time.time() - t0
        except OSError:
            pass
    if scraped is not None and len(closed) == n:
        break
    time.sleep(1)
print("scraped", -1 if scraped is None else round(scraped, 1))
print("closed", len(closed))
PY
port_of() { sed -n 's|.*metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' "$1" | head -1; }
"$BIN" --headless "${W[@]}" -i 0.2 -n 1 -o /dev/null --listen 127.0.0.1:0 2>"$TMP/http.err" &
SUP=$!
SUPS+=("$SUP")
wait_for 30 eval 'test -n "$(port_of "$TMP/http.err")"'
python3 "$TMP/hold.py" "$(port_of "$TMP/http.err")" 40 40 >"$TMP/hold.out" 2>&1
check "40 connections trickling a byte a second: a scrape is answered within 30 s" \
	awk '$1 == "scraped" { exit !($2 >= 0 && $2 <= 30) }' "$TMP/hold.out"
check "... and the server closed every one of them" grep -qx "closed 40" "$TMP/hold.out"
diag "$TMP/hold.out"
kill -TERM "$SUP"
wait "$SUP" 2>/dev/null
# Under a descriptor limit of 40, more clients than it leaves: refused, never a silent server.
(
	ulimit -n 40
	exec "$BIN" --headless "${W[@]}" -i 0.2 -n 1 -o /dev/null --listen 127.0.0.1:0 2>"$TMP/fd.err"
) &
SUP=$!
SUPS+=("$SUP")
wait_for 30 eval 'test -n "$(port_of "$TMP/fd.err")"'
python3 - "$(port_of "$TMP/fd.err")" >"$TMP/fd.out" 2>&1 <<'PY'
import socket, sys, time, urllib.request
port = int(sys.argv[1])
conns = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(60)]
time.sleep(1)
for s in conns:
    s.close()
for _ in range(20):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=2) as r:
            if r.status == 200:
                print("answered")
                break
    except OSError:
        time.sleep(1)
PY
check "ulimit -n 40 and 60 clients: once they leave, /metrics answers" grep -qx answered "$TMP/fd.out"
kill -TERM "$SUP"
wait "$SUP" 2>/dev/null
ok $? "... and the run ends with status 0"

# ---- 13. --listen: [::] is IPv6 only (broadcast and multicast refused: at the top) ----
"$BIN" --headless "${W[@]}" -i 0.2 -n 0 -o /dev/null --listen '[::]:0' 2>"$TMP/v6.err" &
SUP=$!
SUPS+=("$SUP")
wait_for 30 grep -q "metrics on" "$TMP/v6.err"
P6=$(sed -n 's|.*metrics on http://\[::\]:\([0-9]*\)/metrics$|\1|p' "$TMP/v6.err")
python3 - "$P6" >"$TMP/v6.out" 2>&1 <<'PY'
import socket, sys
port = int(sys.argv[1])
for fam, host in ((socket.AF_INET6, "::1"), (socket.AF_INET, "127.0.0.1")):
    try:
        socket.create_connection((host, port), timeout=3).close()
        print(host, "connects")
    except OSError:
        print(host, "refused")
PY
check "--listen [::]:0 serves IPv6 ($(tr '\n' ' ' <"$TMP/v6.out"))" grep -qx "::1 connects" "$TMP/v6.out"
check "... and not IPv4" grep -qx "127.0.0.1 refused" "$TMP/v6.out"
kill -TERM "$SUP"
wait "$SUP" 2>/dev/null
"$BIN" --headless "${W[@]}" -n 1 --listen 127.0.0.1:0 -o "$TMP" >/dev/null 2>"$TMP/ann.err"
ok $([ $? -eq 2 ] && ! grep -q "metrics on" "$TMP/ann.err"; echo $?) \
	"a run refused for a later output error announces no server"

# ---- 10. text from outside is made safe once, for every output ----
odd="$TMP/k"$'\r\xff\t'"dir"
mkdir "$odd"
cp "$ROOT/kernels/examples/compute.cl" "$odd/"
for fmt in jsonl csv; do
	timeout 120 "$BIN" --headless --kernel "$odd/compute.cl" --build-options $'-DITERS=4 -DX=\xfe\r' -n 1 -s 1000 -l 1 \
		-i 0.2 -D 1 -f "$fmt" -o "$TMP/odd.$fmt" 2>"$TMP/odd.err"
	ok $? "a kernel path and build options with a CR, a tab and stray bytes: the $fmt run ends with status 0"
done
python3 - "$TMP/odd.jsonl" "$TMP/odd.csv" >"$TMP/odd.out" 2>&1 <<'PY'
import csv, json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
assert "k???dir" in rows[0]["run"]["options"]["kernel"], rows[0]["run"]["options"]
with open(sys.argv[2], encoding="utf-8", newline="") as f:
    cells = list(csv.reader(f))
assert len({len(r) for r in cells}) == 1
json.loads(cells[1][cells[0].index("run")])
PY
ok $? "... the JSONL parses as UTF-8 JSON and the CSV decodes, its run header JSON too"
diag "$TMP/odd.out"
check "... standard error holds no CR" test "$(tr -cd '\r' <"$TMP/odd.err" | wc -c)" -eq 0

# ---- 16. messages ----
"$BIN" --headless "${ENDLESS[@]}" --calibrate -n 1 -o /dev/null 2>"$TMP/calk.err" &
SUP=$!
wait_for 60 eval 'pgrep -P '"$SUP"' -f -- --calibrate-child >/dev/null'
pkill -KILL -P "$SUP" -f -- --calibrate-child
check "a ceiling child killed by SIGKILL ends the run" ended_within 20 "$SUP"
wait "$SUP" 2>/dev/null
ok $([ $? -eq 1 ]; echo $?) "... with status 1"
check "... saying it was killed, not that its error is above" \
	grep -q "the measurement was killed by SIGKILL" "$TMP/calk.err"
long="$TMP/$(printf 'p%.0s' $(seq 1 245))"
timeout 60 "$BIN" --headless "${W[@]}" -i 0.2 -n 1 -D 0.6 -o /dev/null --prom-file "$long" 2>"$TMP/long.err"
ok $([ $? -eq 0 ] && [ ! -e "$long" ]; echo $?) "a --prom-file name of 245 characters works (and is removed at the end)"
bad2 "a kernel name with a tab and a newline is echoed on one line" "no kernel 'a?b?c'" \
	--kernel "$ROOT/kernels/examples/saxpy.cl" --kernel-name $'a\tb\nc'
