#!/usr/bin/env bash
# test_clean_text.sh: text from outside is cleaned the same way for every output and screen, and
# no control character reaches a terminal. Values on the command line echoed in a refusal; then
# an observed program whose name holds ESC, CR, BEL, a stray byte, a comma, a C1 character and
# an é, and whose output lines hold CR, backspace, ESC[2J and BEL: the CSV log decodes as UTF-8,
# has one column count and no control byte, its command column and run header, the trace, the
# Prometheus text and the report show '?' where the controls were (the é kept); standard error
# has no ESC, BEL or CR; and the dashboard's o screen shows each line after its own [N], with
# '?' in place of every control character. Nothing is left behind.
# tier: fast, about 20 s
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/screen.sh"

PY=/usr/bin/python3
DPID= SUP=
GO="$TMP/go"
clean_cleanup() {
	touch "$GO" # a program still waiting goes on, and ends
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait_for 10 gone "$DPID"
	[ -n "$SUP" ] && kill -TERM "$SUP" 2>/dev/null && wait_for 10 gone "$SUP"
	"${TM[@]}" kill-server >/dev/null 2>&1
	tap_cleanup
}
on_exit clean_cleanup
trap "exit 143" TERM INT

# safe FILE: the file decodes as UTF-8 and holds no control character (C0 but the newline, DEL,
# C1): it can go to any terminal or parser as it is.
safe() {
	"$PY" - "$1" <<'PY'
import sys
try:
    text = open(sys.argv[1], "rb").read().decode("utf-8")  # strict: a stray byte fails
except (OSError, UnicodeDecodeError):
    sys.exit(1)
bad = [c for c in text if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f)]
sys.exit(1 if bad else 0)
PY
}

# A name of 15 bytes (what a process's comm holds): ESC [2J, CR, BEL, a stray byte, a comma,
# U+009B (CSI in one character) and é. Cleaned: every control and the stray byte one '?' each.
NAME=$'odd\e[2J\r\a\xff,\xc2\x9b\xc3\xa9'
CLEAN='odd?[2J???,?é'
CLEAN_RE='odd\?\[2J\?\?\?,\?'

# ---- refusals echo what they were given, cleaned (no device needed) ----
"$BIN" --headless -s $'12\e[2J\a' 2>"$TMP/size.err"
check "a size with ESC and BEL: refused (status 2)" test $? -eq 2
check "  its message: one line, UTF-8, no control character" \
	eval 'safe "$TMP/size.err" && [ "$(wc -l <"$TMP/size.err")" -eq 1 ]'
check "  the value shown with '?' for them" grep -qF "'12?[2J?' is not a whole number" "$TMP/size.err"
"$BIN" --headless -- "./$NAME" 2>"$TMP/missing.err"
check "a missing command named with controls: refused (status 2)" test $? -eq 2
check "  its message: one line, UTF-8, no control character" \
	eval 'safe "$TMP/missing.err" && [ "$(wc -l <"$TMP/missing.err")" -eq 1 ]'
check "  the name shown cleaned: ./$CLEAN: command not found" grep -qxF "gputop-decode: ./$CLEAN: command not found" \
	"$TMP/missing.err"

device_from_here

# The program: its name is NAME; it prints two lines meant to act on a terminal (the second one
# would overwrite its own [N] with a forged one), waits for $GO, then runs cl_counts through a
# link of the same name, so that the OpenCL calls come from a process whose comm is NAME too.
CNT="$FIXTURES/cl_counts" # make fixtures
mkdir -p "$TMP/bin" "$TMP/cl"
ln -s "$CNT" "$TMP/cl/$NAME"
cat >"$TMP/bin/$NAME" <<'EOF'
#!/bin/sh
printf 'fake\rX\bY\033[2JZ\007 \377\302\233end\n'
printf '\r[9] forged\n'
while [ ! -e "$GO" ]; do sleep 0.1; done
exec "${0%/*}/../cl/${0##*/}" 3 2
EOF
chmod +x "$TMP/bin/$NAME"
export GO

# ---- headless: the log, the trace, the Prometheus text, the report, standard error ----
cd "$TMP" || exit 1
"$BIN" --headless -n 1 -i 0.2 -o "$TMP/log.csv" --trace "$TMP/trace.json" --prom-file "$TMP/metrics.prom" \
	--report "$TMP/report.html" -- "./bin/$NAME" 2>"$TMP/run.err" &
SUP=$!
# A row while the program has made no OpenCL call (its name from the command line), then go.
wait_for 60 grep -qsa ',no OpenCL calls seen,' "$TMP/log.csv"
ok $? "a row of the program before its first OpenCL call"
# The Prometheus text while the program runs (a row that has ended leaves it).
wait_for 30 grep -qsE "command=\"$CLEAN_RE" "$TMP/metrics.prom"
ok $? "the Prometheus text: the command label is the name cleaned"
check "  UTF-8 with no control byte" safe "$TMP/metrics.prom"
touch "$GO"
wait_for 120 gone "$SUP"
wait "$SUP"
ok $? "the run ends with the program, status 0"
check "  no segment, no process of it left" test "$(segments_of "$SUP")" -eq 0 -a "$(observed_of "$SUP")" -eq 0
SUP=
check "the CSV log: UTF-8 with no control byte but the line ends" safe "$TMP/log.csv"
# Of the log: the distinct column counts, whether a command value is the name cleaned whole,
# how many command values do not start as it does, the run header's command, one a line.
mapfile -t got < <("$PY" - "$TMP/log.csv" "$CLEAN" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))
head, clean = rows[0], sys.argv[2]
cmds = [r[head.index("command")] for r in rows[1:] if r[head.index("kind")] == "worker"]
run = json.loads(next(r for r in rows if r[head.index("kind")] == "run")[head.index("run")])
print(len({len(r) for r in rows}))
print(clean in cmds)
print(sum(not c.startswith(clean[:11]) for c in cmds))
print(run["options"]["command"][0])
PY
)
check "  csv.reader: the same number of columns on every row" test "${got[0]:-}" = 1
check "  the command column before the first call: the name cleaned, the é kept" test "${got[1]:-}" = True
check "  every command value cleaned (${got[2]:-?} not)" test "${got[2]:-}" = 0
check "  the run header's command: ./bin/$CLEAN" test "${got[3]:-}" = "./bin/$CLEAN"
check "the trace: UTF-8 with no control byte, and JSON" eval 'safe "$TMP/trace.json" && "$PY" -c "import json,sys; json.load(open(sys.argv[1]))" "$TMP/trace.json"'
check "  its process named with the name cleaned" grep -qE "\"process 1 \\(pid [0-9]+, $CLEAN_RE" "$TMP/trace.json"
check "the report: UTF-8 with no control byte, the run's command cleaned" \
	eval 'safe "$TMP/report.html" && grep -qF "./bin/$CLEAN" "$TMP/report.html"'
check "standard error: UTF-8 with no ESC, BEL, CR or other control" safe "$TMP/run.err"
check "  observing ./bin/$CLEAN" grep -qF "gputop-decode: observing ./bin/$CLEAN through" "$TMP/run.err"
check "  the program's lines, each after [1], '?' for each control" \
	eval 'grep -qxF "[1] fake?X?Y?[2JZ? ??end" "$TMP/run.err" && grep -qxF "[1] ?[9] forged" "$TMP/run.err"'
check "  no line passed off as another row's" eval '! grep -q "^\[9\]" "$TMP/run.err"'
rm -f "$GO"

# ---- the dashboard: the o screen ----
"${TM[@]}" new-session -d -x 100 -y 30 -s main "env PS1='$ ' LC_ALL=C.UTF-8 bash --norc --noprofile"
SHPID=$("${TM[@]}" display -p -t main '#{pane_pid}')
keys "clear; cd $TMP; GO=$GO $BIN -n 1 -i 0.2 --no-config -- ./bin/*; echo END=\$?" Enter
see "the dashboard starts, observing the program" 60 eval 'find_dash && rows_are "no CL" 1'
DASH=$DPID
keys o
see "o: each line after its own [1], '?' in place of CR, backspace, ESC and BEL" 10 \
	eval 'screen_has "^\\[1\\] fake\\?X\\?Y\\?\\[2JZ\\? \\?\\?end" && screen_has "^\\[1\\] \\?\\[9\\] forged"'
check "  no line passed off as another row's" eval '! screen_has "^\\[9\\]"'
check "  the screen was not cleared by the program's ESC[2J" screen_has "^The programs. output"
keys q
see "  q quits with status 0" 60 screen_has "^END=0\$"
DPID=
check "no segment left" test -n "$DASH" -a "$(segments_of "${DASH:-0}")" -eq 0
check "no process of the program left" test "$(observed_of "${DASH:-0}")" -eq 0
