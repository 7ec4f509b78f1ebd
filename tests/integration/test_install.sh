#!/usr/bin/env bash
# test_install.sh: `make install PREFIX=... DESTDIR=...` puts the binary, every file of kernels/
# the man page and libgputop-observe.so in place; the installed binary, run from elsewhere without
# GPUTOP_DECODE_KERNELS, finds its kernels under the prefix and logs a headless sample;
# `make uninstall` leaves no file behind. make is told the binary is up to date (-o), so the
# test installs the binary that was built and never rebuilds it with other settings.
# tier: fast, about 5 s
# (The fast tier installs and uninstalls; the runs of the installed binary need the device.)
. "$(dirname "$0")/lib.sh"
PREFIX=/opt/gputop-decode-test
DEST="$TMP/root"
MAKE=(make -s --no-print-directory -C "$ROOT" -o gputop-decode -o libgputop-observe.so PREFIX="$PREFIX" DESTDIR="$DEST")
unset GPUTOP_DECODE_KERNELS

"${MAKE[@]}" install >"$TMP/install.out" 2>&1
ok $? "make install PREFIX=$PREFIX DESTDIR=\$TMP/root"
diag "$TMP/install.out"
P="$DEST$PREFIX"
check "the binary is installed, executable" test -x "$P/bin/gputop-decode"
check "it is the binary that was built" cmp -s "$ROOT/gputop-decode" "$P/bin/gputop-decode"
check "the man page is installed" test -s "$P/share/man/man1/gputop-decode.1"
missing=0
while IFS= read -r f; do
	cmp -s "$ROOT/$f" "$P/share/gputop-decode/$f" || { echo "# missing or different: $f"; missing=1; }
done < <(cd "$ROOT" && find kernels -type f)
ok $missing "every file under kernels/ is installed ($(cd "$ROOT" && find kernels -type f | wc -l) files)"

# The installed binary, from another directory, finds decode.cl in the prefix's share/.
mkdir -p "$TMP/elsewhere"
if with_device; then
	(cd "$TMP/elsewhere" && "$P/bin/gputop-decode" --headless -n 1 -s 5000 -l 1 -i 0.2 -D 0.8 -f csv \
		>"$TMP/installed.csv" 2>"$TMP/installed.err")
	ok $? "the installed binary runs a headless sample from another directory"
	diag "$TMP/installed.err"
	check "its log has worker rows" test "$(grep -c ',worker,' "$TMP/installed.csv")" -ge 1
	check "its log has aggregate rows" test "$(grep -c ',aggregate,' "$TMP/installed.csv")" -ge 1
	check "it wrote nothing in the directory it ran in" test -z "$(ls -A "$TMP/elsewhere")"
fi

# The observation library sits under lib/gputop-decode, where the installed binary finds it.
check "libgputop-observe.so is installed" cmp -s "$ROOT/libgputop-observe.so" "$P/lib/gputop-decode/libgputop-observe.so"
if with_device; then
	(cd "$TMP/elsewhere" && "$P/bin/gputop-decode" --headless -i 0.2 -- true >"$TMP/observed.csv" 2>"$TMP/observed.err")
	ok $? "the installed binary observes a program"
	check "... with the installed library" grep -q "$P/lib/gputop-decode/libgputop-observe.so" "$TMP/observed.err"
fi

"${MAKE[@]}" uninstall >"$TMP/uninstall.out" 2>&1
ok $? "make uninstall"
diag "$TMP/uninstall.out"
find "$DEST" -type f >"$TMP/left"
check "make uninstall leaves no file behind" test ! -s "$TMP/left"
diag "$TMP/left"
check "... nor the package's data directory" test ! -e "$P/share/gputop-decode"
check "... nor its library directory" test ! -e "$P/lib/gputop-decode"
