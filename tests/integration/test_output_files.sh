#!/usr/bin/env bash
# test_output_files.sh: --report is replaced, never overwritten in place. A run writes the page
# whole (mode 0644 under umask 022, no temporary file left); a run SIGKILLed mid-way leaves the
# previous report as it was; a report that does not fit a full file system is said in one line,
# status 1, the previous report intact and no temporary file left (a tmpfs of 64 KiB, where
# mount works: as root); a --report that is not a regular file (a FIFO with a reader that never
# reads, a device, a symbolic link) is refused at start with status 2 and one line; "-" writes
# the page to standard output.
# tier: device, about 10 s
. "$(dirname "$0")/lib.sh"
SHORT=(-n 1 -s 1000 -D 1)
MNT=
files_cleanup() {
	exec 3>&- 2>/dev/null
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	stop_started
	tap_cleanup
}
on_exit files_cleanup

# whole FILE: a page from its doctype to its last line.
whole() { head -c 15 "$1" | grep -q '^<!DOCTYPE html>' && [ "$(tail -n 1 "$1")" = "</html>" ]; }
# leftovers DIR: the temporary files of reports in DIR.
leftovers() { find "$1" -maxdepth 1 -name '.gputop-decode*' | wc -l; }

# ---- a run writes the page whole, by a rename ----
mkdir "$TMP/r"
(umask 022 && exec "$BIN" --headless "${SHORT[@]}" -o "$TMP/r/log.csv" --report "$TMP/r/page.html") 2>"$TMP/r.err"
ok $? "a short run with --report exits 0"
check "  the page is whole: doctype to </html>" whole "$TMP/r/page.html"
check "  mode 0644 under umask 022" test "$(stat -c %a "$TMP/r/page.html")" = 644
check "  no temporary file is left beside it" test "$(leftovers "$TMP/r")" -eq 0
check "  nothing on standard error" test ! -s "$TMP/r.err"

# ---- a SIGKILLed run leaves the previous report as it was ----
cp "$TMP/r/page.html" "$TMP/previous.html"
start kill -n 1 -s 1000 -D 300 -i 0.25 --report "$TMP/r/page.html"
wait_for 120 measured 1 "$TMP/kill.log"
ok $? "  the run to be killed measures"
kill -9 "$SUP"
wait "$SUP" 2>/dev/null
check "a SIGKILLed run leaves the previous report unchanged" cmp -s "$TMP/previous.html" "$TMP/r/page.html"
check "  and no temporary file" test "$(leftovers "$TMP/r")" -eq 0
# That the worker ends with it is test_faults.sh's check in every build; here, only without the
# sanitizers, where it runs in the same short time.
if [ -z "${SANITIZER:-}" ]; then
	wait_for 20 test "$(workers_of "$SUP")" -eq 0
	ok $? "  its worker ends with it"
fi

# ---- not a regular file: refused at start, one line, status 2 ----
# refused NAME PATH: a run with --report PATH exits 2 with one line naming it, bounded by 20 s.
refused() {
	timeout 20 "$BIN" --headless "${SHORT[@]}" -o "$TMP/$1.csv" --report "$2" >"$TMP/$1.out" 2>"$TMP/$1.err"
	local rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/$1.err")" -eq 1 ] && grep -q "is not a regular file" "$TMP/$1.err" &&
		[ ! -e "$TMP/$1.csv" ]
	ok $? "--report $3: refused, status 2 (got $rc), one line, no log created"
	[ $rc -eq 2 ] || diag "$TMP/$1.err"
}
mkfifo "$TMP/fifo"
exec 3<>"$TMP/fifo" # a reader that never reads: the FIFO opens at once, a write would block
refused fifo "$TMP/fifo" "a FIFO with a reader that never reads"
exec 3>&-
refused null /dev/null "a device (/dev/null)"
ln -s page.html "$TMP/r/link.html"
refused link "$TMP/r/link.html" "a symbolic link"
check "  the link is left as it was" test -L "$TMP/r/link.html"

# ---- "-": standard output ----
"$BIN" --headless "${SHORT[@]}" -o "$TMP/dash.csv" --report - >"$TMP/dash.html" 2>"$TMP/dash.err"
ok $? "--report -: exits 0"
check "  the page whole on standard output" whole "$TMP/dash.html"

# ---- a full file system: the previous report stays, the error is one line ----
MNT="$TMP/small"
mkdir "$MNT"
if mount -t tmpfs -o size=64k tmpfs "$MNT" 2>/dev/null; then
	head -c 4000 "$TMP/previous.html" >"$MNT/page.html"
	cp "$MNT/page.html" "$TMP/small-previous.html"
	head -c 1M /dev/zero >"$MNT/fill" 2>/dev/null
	"$BIN" --headless "${SHORT[@]}" -o "$TMP/full.csv" --report "$MNT/page.html" 2>"$TMP/full.err"
	rc=$?
	ok $((rc != 1)) "a report that does not fit: status 1 (got $rc)"
	[ "$(wc -l <"$TMP/full.err")" -eq 1 ] &&
		grep -q "^gputop-decode: --report: cannot write '.*': No space left on device$" "$TMP/full.err"
	ok $? "  one line naming the report and the reason"
	[ $rc -eq 1 ] || diag "$TMP/full.err"
	check "  the previous report is intact" cmp -s "$TMP/small-previous.html" "$MNT/page.html"
	check "  no temporary file is left" test "$(leftovers "$MNT")" -eq 0
	umount "$MNT"
	MNT=
else
	for d in "a report that does not fit: status 1" "  one line naming the report and the reason" \
		"  the previous report is intact" "  no temporary file is left"; do
		ok 0 "$d # skip mount -t tmpfs is not allowed here"
	done
fi
