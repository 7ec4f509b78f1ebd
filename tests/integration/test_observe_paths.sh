#!/usr/bin/env bash
# test_observe_paths.sh: a library path with a space and a colon reaches the observed program
# whole. With libgputop-observe.so in "a b:c" (GPUTOP_DECODE_OBSERVE_LIB), a C program with known
# launches, transfers and waits gives exactly those counts through --observe-via preload, layer
# and both, and ld.so complains of nothing; the program finds the library in its lists as
# /proc/<tool's pid>/fd/<fd>, has it mapped, and holds no descriptor on it. A copy of the tool
# installed in a directory with a space, a colon and a '$' (binary, library and kernels side by
# side) observes the same. A plain path still goes into the lists as it is. Nothing is left
# behind.
# tier: fast, about 10 s
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
CNT="$FIXTURES/cl_counts" # make fixtures
ODD="$TMP/a b:c"
mkdir -p "$ODD" && cp "$ROOT/libgputop-observe.so" "$ODD/"
check "the C test program is built" test -x "$CNT"
device_from_here

# field LOG EXPR: a Python expression over the log's last row of each process (rows), printed.
field() {
	"$PY" - "$1" "$2" <<'PYEOF'
import csv, sys
last = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["kind"] == "worker":
        last[r["id"]] = r
rows = [last[k] for k in sorted(last, key=int)]
print(eval(sys.argv[2]))
PYEOF
}
no_leftovers() { [ "$(segments_of "$1")" -eq 0 ] && [ "$(children_of "$1")" -eq 0 ]; }
COUNTS="[(int(r['launches']), int(r['batches']), int(r['waits']), int(r['h2d_bytes']), int(r['d2h_bytes']), r['exit_status']) for r in rows]"
# 6 batches of 1 write, 10 launches over 4096 items and 1 read of 16 KiB each.
WANT="[(60, 6, 6, 98304, 98304, '0')]"

for via in preload layer both; do
	GPUTOP_DECODE_OBSERVE_LIB="$ODD/libgputop-observe.so" "$BIN" --headless -i 0.5 -n 1 --observe-via $via \
		-o "$TMP/$via.log" -- "$CNT" 6 10 2>"$TMP/$via.err" &
	sup=$!
	wait $sup
	ok $? "library in 'a b:c', $via: the run ends with the program"
	got=$(field "$TMP/$via.log" "$COUNTS")
	check "... launches, batches, waits and bytes exactly ($got)" test "$got" = "$WANT"
	check "... ld.so preloads nothing that is not there" ! grep -q "cannot be preloaded" "$TMP/$via.err"
	check "... no segment, no process left" no_leftovers $sup
	diag "$TMP/$via.err"
done

# What the program finds: both lists name the tool's descriptor, which resolves to the library;
# the library is in its map; the descriptor is not among its own.
SHOW='printf "pre=%s\nlay=%s\n" "$LD_PRELOAD" "$OPENCL_LAYERS"; readlink -f "$LD_PRELOAD";
grep -c "a b:c/libgputop-observe.so" /proc/$$/maps; ls -l /proc/$$/fd | grep -c "libgputop-observe"'
GPUTOP_DECODE_OBSERVE_LIB="$ODD/libgputop-observe.so" "$BIN" --headless -i 0.5 -n 1 \
	-o "$TMP/show.log" -- sh -c "$SHOW" 2>"$TMP/show.err" &
sup=$!
wait $sup
sed -n 's/^\[1\] //p' "$TMP/show.err" >"$TMP/show.out"
check "the program's LD_PRELOAD is /proc/<tool's pid>/fd/<fd>" grep -qx "pre=/proc/$sup/fd/[0-9]*" "$TMP/show.out"
check "... and its OPENCL_LAYERS the same" test "$(sed -n 's/^lay=//p' "$TMP/show.out")" = "$(sed -n 's/^pre=//p' "$TMP/show.out")"
check "... which resolves to the library" test "$(sed -n 3p "$TMP/show.out")" = "$ODD/libgputop-observe.so"
check "... which the program has mapped" test "$(sed -n 4p "$TMP/show.out")" -gt 0
check "... with no descriptor of its own on it" test "$(sed -n 5p "$TMP/show.out")" -eq 0
diag "$TMP/show.out"

# The common case is unchanged: a plain path goes into the lists as it is.
mkdir -p "$TMP/plain" && cp "$ROOT/libgputop-observe.so" "$TMP/plain/"
GPUTOP_DECODE_OBSERVE_LIB="$TMP/plain/libgputop-observe.so" "$BIN" --headless -i 0.5 -n 1 \
	-o "$TMP/plain.log" -- sh -c 'printf "pre=%s\n" "$LD_PRELOAD"' 2>"$TMP/plain.err"
check "a plain path: LD_PRELOAD is the path itself" grep -qxF "[1] pre=$TMP/plain/libgputop-observe.so" "$TMP/plain.err"

# A copy of the tool in a directory with a space, a colon and a '$' (the build tree's layout),
# run from elsewhere: it finds its library next to it and observes through both ways.
INST="$TMP/x y:\$ORIGIN"
mkdir -p "$INST" "$TMP/elsewhere" && cp "$BIN" "$ROOT/libgputop-observe.so" "$INST/" && cp -r "$ROOT/kernels" "$INST/"
(cd "$TMP/elsewhere" && unset GPUTOP_DECODE_OBSERVE_LIB GPUTOP_DECODE_KERNELS &&
	exec "$INST/gputop-decode" --headless -i 0.5 -n 1 -o "$TMP/inst.log" -- "$CNT" 6 10 2>"$TMP/inst.err") &
sup=$!
wait $sup
ok $? "the tool installed in 'x y:\$ORIGIN': the run ends with the program"
check "... with its own library" grep -qF "($INST/libgputop-observe.so)" "$TMP/inst.err"
got=$(field "$TMP/inst.log" "$COUNTS")
check "... launches, batches, waits and bytes exactly ($got)" test "$got" = "$WANT"
check "... ld.so preloads nothing that is not there" ! grep -q "cannot be preloaded" "$TMP/inst.err"
check "... no segment, no process left" no_leftovers $sup
diag "$TMP/inst.err"
