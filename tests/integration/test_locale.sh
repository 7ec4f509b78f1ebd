#!/usr/bin/env bash
# test_locale.sh: numbers in every file format are the same under a comma-decimal locale:
# de_DE.UTF-8 is generated into the test's directory (localedef), then the headless log, a
# sweep's rows and the trace, and the dashboard's trace, are parsed as CSV and JSON.
# tier: fast, about 15 s
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/loc"
localedef -i de_DE -f UTF-8 "$TMP/loc/de_DE.UTF-8" >/dev/null 2>&1
export LOCPATH="$TMP/loc"
check "de_DE.UTF-8 is generated and writes a decimal comma" \
	eval '[ "$(LC_ALL=de_DE.UTF-8 locale decimal_point)" = "," ]'
export LC_ALL=de_DE.UTF-8
device_from_here

A=(-s 20000 -l 2 -i 0.5)
"$BIN" --headless -n 1 -D 1.5 "${A[@]}" -f jsonl -o "$TMP/log.jsonl" --trace "$TMP/h.trace" 2>/dev/null
# (until a window has a rate, bounded; then SIGINT)
"$BIN" --headless -n 1 -D 300 "${A[@]}" -o "$TMP/log.csv" 2>/dev/null &
stop_when 120 $! measured 1 "$TMP/log.csv"
"$BIN" --sweep 1 -D 1 "${A[@]}" -f jsonl -o "$TMP/sweep.jsonl" >"$TMP/table" 2>/dev/null
python3 - "$TMP" <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(d + "/log.jsonl")]
assert rows and all(isinstance(r["t_s"], float) for r in rows)
json.load(open(d + "/h.trace"))
rates = 0
for r in csv.DictReader(open(d + "/log.csv")):
    if r["kind"] != "run":
        float(r["t_s"])
        if r["mbit_s"]:  # empty in a window in which no batch completed: not measured
            float(r["mbit_s"])
            rates += 1
assert rates
assert [json.loads(l)["kind"] for l in open(d + "/sweep.jsonl")] == ["run", "sweep"]
PY
ok $? "headless: JSONL, CSV, sweep rows and the trace parse with '.' decimals"
check "the sweep table prints '.' decimals" grep -qE '^ +1 +1 +[0-9]+\.[0-9]{2} ' "$TMP/table"

# The dashboard sets a locale for its characters: its trace must not take the comma.
TM=(tmux -S "$TMP/tmux.sock" -f /dev/null)
touch "$TMP/tmux.conf"
"${TM[@]}" new-session -d -x 100 -y 30 -s main \
	"env LOCPATH=$LOCPATH LC_ALL=de_DE.UTF-8 TERM=xterm $BIN ${A[*]} -n 1 -D 2 --trace $TMP/d.trace; sleep 30"
wait_for 60 python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/d.trace" 2>/dev/null
ok $? "the dashboard's trace parses as JSON under de_DE.UTF-8"
"${TM[@]}" kill-server >/dev/null 2>&1
