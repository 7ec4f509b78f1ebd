#!/usr/bin/env bash
# test_bad_input.sh: bad command lines through the real binary: each exits 2 with exactly one
# line on stderr naming the problem, and starts nothing (no worker, no segment, no file).
# Then a log that cannot be written at run time (/dev/full): reported, non-zero, no leftovers.
# tier: fast, about 15 s
# (The fast tier leaves out what is refused only once the OpenCL device is known: device names,
# and outputs, which are opened after the device; with_device marks them.)
. "$(dirname "$0")/lib.sh"
UID_=$(id -u)
OUT="$TMP/out" # every file a bad command line names lives here: it must stay empty
mkdir -p "$OUT"
on_exit 'kill $(jobs -p) 2>/dev/null; tap_cleanup'

# workers_of PID: worker processes started by supervisor PID (found by their segment name).
workers_of() { pgrep -cf -- "--worker=/gputop-decode\.$UID_\.$1\."; }

# bad WANT ARGS...: runs the binary without a terminal; WANT must appear in the one line. (Its
# checks are shell builtins where they can be: on a loaded machine every process started costs.)
bad() {
	local want=$1
	shift
	"$BIN" "$@" </dev/null >"$TMP/stdout" 2>"$TMP/stderr" &
	local pid=$! who
	# Bounded: a command line wrongly accepted runs; it must not hang the test.
	sleep 60 &
	local dog=$!
	wait -n -p who $pid $dog
	local rc=$?
	if [ "$who" != $pid ]; then
		kill -9 $pid 2>/dev/null
		wait $pid
		rc=$?
	fi
	kill $dog 2>/dev/null
	wait $dog 2>/dev/null
	local err="" nl made why=""
	IFS= read -r -d '' err <"$TMP/stderr"
	nl=${err//[!$'\n']/}
	[ $rc -eq 2 ] || why="exit status $rc"
	[ ${#nl} -eq 1 ] && [[ $err == *$'\n' ]] || why="$why; ${#nl} lines on stderr"
	[[ $err == *"gputop-decode: "* && $err == *"$want"* ]] || why="$why; message does not name '$want'"
	[ -s "$TMP/stdout" ] && why="$why; output on stdout"
	[ "$(segments_of $pid)" -eq 0 ] || why="$why; a segment was created"
	[ "$(workers_of $pid)" -eq 0 ] || why="$why; a worker was started"
	shopt -s nullglob dotglob
	made=("$OUT"/*)
	shopt -u nullglob dotglob
	if [ ${#made[@]} -gt 0 ]; then
		why="$why; created ${made[*]##*/}"
		rm -rf "${made[@]}"
	fi
	ok $([ -z "$why" ] && echo 0 || echo 1) "exit 2, one line naming '$want': $(printf '%q ' "$@")"
	if [ -n "$why" ]; then
		echo "# ${why#; }"
		diag "$TMP/stderr"
	fi
}

H=(--headless -o "$OUT/log.csv") # a valid log path: bad input must not create it either

# Options and arguments.
bad "--bogus" "${H[@]}" --bogus
bad "-x" "${H[@]}" -x
bad "extra" "${H[@]}" extra
bad "--worker" --worker=not-a-worker
# Missing values.
bad "--procs" "${H[@]}" --procs
bad "-n" "${H[@]}" -n
bad "-s" "${H[@]}" -s
bad "--output" --headless --output
bad "--dtype" "${H[@]}" --dtype
# Numbers: not numbers, negative, zero, overflowing, out of range.
bad "--size" "${H[@]}" --size=
bad "abc" "${H[@]}" -s abc
bad "1.5" "${H[@]}" --size 1.5
bad "12abc" "${H[@]}" --size 12abc
bad "0x10" "${H[@]}" --size 0x10
bad " 5" "${H[@]}" --size " 5"
bad "-5" "${H[@]}" --size -5
bad "--size" "${H[@]}" --size 0
bad "134217729" "${H[@]}" --size 134217729
bad "99999999999999999999" "${H[@]}" --size 99999999999999999999
bad "--procs" "${H[@]}" --procs -1
bad "--procs" "${H[@]}" --procs 257
bad "--max-procs" "${H[@]}" --procs 5 --max-procs 4
bad "--max-procs" "${H[@]}" --max-procs 0
bad "--max-procs" "${H[@]}" --max-procs 257
bad "--launches" "${H[@]}" --launches 0
bad "--launches" "${H[@]}" --launches 1001
bad "-l: 'x'" "${H[@]}" -l x
bad "--interval" "${H[@]}" --interval 0
bad "-i: '0.01'" "${H[@]}" -i 0.01
bad "--interval" "${H[@]}" --interval 61
bad "nan" "${H[@]}" --interval nan
bad "inf" "${H[@]}" --interval inf
bad "1e400" "${H[@]}" --interval 1e400
bad "--interval" "${H[@]}" --interval ""
bad "--duration" "${H[@]}" --duration 0
bad "-D: '-1'" "${H[@]}" -D -1
bad "xyz" "${H[@]}" --duration xyz
bad "--trace-limit" "${H[@]}" --trace-limit 0
# Names.
bad "xml" "${H[@]}" --format xml
bad "-f: unknown value" "${H[@]}" -f ""
bad "turbo" "${H[@]}" --mode turbo
bad "SEED" "${H[@]}" --mode SEED
bad "f16" "${H[@]}" --dtype f16
bad "--generator: unknown value 'gauss' (expected ziggurat, box-muller)" "${H[@]}" --generator gauss
bad "--generator: unknown value 'auto'" "${H[@]}" -m pipelined --generator=auto
bad "--generator" "${H[@]}" --generator
bad "--gen: ambiguous option" "${H[@]}" --gen 2
# A name near a known one: did you mean it (options, choices, fields); near none: the plain refusal.
bad "--sweeep: unknown option (did you mean --sweep?)" "${H[@]}" --sweeep 1,2
bad "--fomat: unknown option (did you mean --format?)" "${H[@]}" --fomat=csv
bad "--mode: unknown value 'pipelind' (did you mean pipelined?)" "${H[@]}" --mode pipelind
bad "--mode: unknown value 'SEED' (did you mean seed?)" "${H[@]}" --mode SEED
bad "--profile: unknown value 'sampeld' (did you mean sampled?)" "${H[@]}" --profile sampeld
bad "--fields: unknown field 'mbitt_s' (did you mean mbit_s?)" "${H[@]}" --fields t_s,mbitt_s
bad "--fields: unknown field 'rat' (did you mean rate?)" "${H[@]}" --sweep 1 --fields procs,rat
bad "--bogus: unknown option (see --help)" "${H[@]}" --bogus
# A --kernel file that is not there: the path exactly as typed (the user's own words; a path
# that does not exist has no resolved form to give).
bad "--kernel: nope/../missing.cl: No such file or directory" "${H[@]}" --kernel nope/../missing.cl
# Sweep lists.
bad "empty list" "${H[@]}" --sweep ""
bad "1,,2" "${H[@]}" --sweep 1,,2
bad "1,2," "${H[@]}" --sweep 1,2,
bad ",1" "${H[@]}" --sweep ,1
bad "a,b" "${H[@]}" --sweep a,b
bad "1, 2" "${H[@]}" --sweep "1, 2"
bad "0,1" "${H[@]}" --sweep 0,1
bad "1,300" "${H[@]}" --sweep 1,300
bad "-1" "${H[@]}" --sweep -1
bad "99999999999999999999" "${H[@]}" --sweep 99999999999999999999
bad "--max-procs" "${H[@]}" --sweep 1,4 --max-procs 2
# Devices.
with_device && bad "9:9" "${H[@]}" --device 9:9
with_device && bad "--device" "${H[@]}" --device abc
bad "-d: '0'" "${H[@]}" -d 0
bad "--device" "${H[@]}" --device 0:-1
bad "--device" "${H[@]}" --device :0
bad "--device" "${H[@]}" --device 0:0:0
bad "--device" "${H[@]}" --device 256:0
# Files that cannot be written: neither that file nor any other is created.
bad "empty file name" --headless -o ""
with_device && bad "$OUT/nodir/log.csv" --headless -n 1 -o "$OUT/nodir/log.csv"
with_device && bad "Is a directory" --headless -n 1 -o "$OUT"
bad "empty file name" --headless --trace ""
bad "--kernel-name: empty name" --headless --kernel "$ROOT/kernels/examples/saxpy.cl" --kernel-name ""
bad "--rate-unit: names the unit of an observed program" --headless --rate-unit Mbit/s:10
bad "--rate-unit: 'x': want NAME:ITEMS" --headless --rate-unit x -- true
bad "--rate-unit: 'a b:1': want NAME:ITEMS" --headless --rate-unit 'a b:1' -- true
bad "--rate-unit: 'Mbit/s:0': want NAME:ITEMS" --headless --rate-unit Mbit/s:0 -- true
with_device && bad "$OUT/nodir/t.json" "${H[@]}" -n 1 --trace "$OUT/nodir/t.json"
with_device && bad "Is a directory" "${H[@]}" -n 1 --trace "$OUT"
with_device && bad "$OUT/nodir/log.csv" --headless -n 1 --trace "$OUT/t.json" -o "$OUT/nodir/log.csv"
# The dashboard without a terminal.
bad "terminal" -n 1
bad "terminal" -n 2 -s 1000 -i 0.5 -o "$OUT/log.csv"

# ---- Options that cannot apply to what was asked for ----
bad "-n: does not apply to --sweep" --sweep 1 -n 3 -D 0.5 -s 1000
bad "does not apply to --list-devices" --list-devices -o "$OUT/x" --sweep 1
bad "--headless: does not apply to --list-devices" --list-devices --headless
bad "terminal" -f jsonl -D 0.5

# ---- Internal options: only in full, only from a supervisor ----
bad "--w: unknown option" --w x,1,1,1
bad "unknown option" --wor=x,1,1,1
bad "--worker" --worker="/gputop-decode.$UID_.$$.1.0000000000000001,1,1,$$"
bad "--worker" --worker="/x,1,1,$$"
bad "unknown option" --measure
bad "--calibrate: does not apply to an observed program" --headless --calibrate -- true
bad "--calibrate-child" --calibrate-child
rm -f /dev/shm/gputop-decode."$UID_".$$.* /dev/shm/x # where a wrongly accepted worker left one

# ---- One rule for every number: no surrounding whitespace, no sign ----
bad "-n" "${H[@]}" -D 0.5 -n $'\t2'
bad "-n" "${H[@]}" -D 0.5 -n '2 '
bad "-i" "${H[@]}" -D 0.5 -i ' 0.3'
bad "-i" "${H[@]}" -D 0.5 -i '+0.3'
bad "-i" "${H[@]}" -D 0.5 -i 0x1p-2
bad "-d" "${H[@]}" -D 0.5 -d ' 0:0'
bad "-d" "${H[@]}" -D 0.5 -d +0:0
bad "-d" "${H[@]}" -D 0.5 -d '0: 0'
bad "-s" "${H[@]}" -D 0.5 -s +5000
bad "--procs" "${H[@]}" -D 0.5 --procs -0
bad "--duration" "${H[@]}" --duration ' 1'

# ---- Prefixes and flags ----
bad "--tr: ambiguous option (could be --trace, --trace-limit)" "${H[@]}" --tr x
bad "--m: ambiguous option (could be --max-procs, --mode)" "${H[@]}" --m 2
bad "--headless: takes no value" --headless=yes -o "$OUT/log.csv"
bad "--verify: takes no value" "${H[@]}" --verif=1

device_from_here
# ---- Outputs: refused together before any is opened; two outputs never share a file ----
KEEP="$TMP/keep" # files that exist before the run: a refused run must leave them as they were
mkdir -p "$KEEP"
kept() { [ "$(cat "$KEEP/$1" 2>/dev/null)" = "kept $1" ]; }
keep() { printf 'kept %s' "$1" >"$KEEP/$1"; }
keep t.json
bad "$OUT/nodir/log.csv" --headless -n 1 -o "$OUT/nodir/log.csv" --trace "$KEEP/t.json"
check "an existing trace is left untouched when --output is refused" kept t.json
bad "same file" --headless -n 1 -D 0.5 -s 1000 -o "$OUT/same" --trace "$OUT/same"
bad "same file" --headless -n 1 -D 0.5 -s 1000 -o "$OUT/same" --trace "$OUT/./same"
keep both
bad "same file" --headless -n 1 -D 0.5 -s 1000 -o "$KEEP/both" --trace "$KEEP/../keep/both"
check "a file named by two outputs is left untouched" kept both
ln -s both "$KEEP/link"
bad "same file" --headless -n 1 -D 0.5 -s 1000 -o "$KEEP/both" --trace "$KEEP/link"
check "a file reached through a symbolic link too" kept both
cd "$OUT" # a file named '-' would land here
bad "same file" --headless -n 1 -D 0.5 -s 1000 --trace -
bad "same file" --headless -n 1 -D 0.5 -s 1000 -o - --trace -
bad "same file" --sweep 1 -D 0.5 -s 1000 --trace -
cd "$ROOT"

# A log that fills the disk at run time: reported on stderr, non-zero exit, no leftovers.
"$BIN" --headless -n 2 -s 20000 -l 2 -i 0.2 -D 30 -o /dev/full 2>"$TMP/full.err" &
pid=$!
wait_for 60 bash -c "! kill -0 $pid 2>/dev/null"
ok $? "a run logging to /dev/full ends early"
wait $pid
rc=$?
check "its exit status is non-zero ($rc)" test "$rc" -ne 0
check "it says why on stderr" grep -q "writing the log: No space left on device" "$TMP/full.err"
diag "$TMP/full.err"
check "no segment of it is left" test "$(segments_of $pid)" -eq 0
check "no worker of it is left" test "$(workers_of $pid)" -eq 0
