#!/usr/bin/env bash
# test_help.sh: --help and the man page describe the same command line: the same long options
# (the internal --worker aside), and where both state an option's range, the same range.
# tier: fast, about 1 s
. "$(dirname "$0")/lib.sh"
MAN="$ROOT/doc/gputop-decode.1"

# Each prints one line per option: NAME LO HI, or NAME - - where no range is stated.

# --help: an option line starts "  -n, --procs" or "      --max-procs"; its text goes on over
# indented lines; a range reads (LO..HI).
help_options() {
	awk '
	function flush() {
		if (name == "")
			return
		lo = hi = "-"
		if (match(text, /\([0-9][0-9.e+]*\.\.([a-z-]+|[0-9][0-9.e+]*)\)/)) {
			split(substr(text, RSTART + 1, RLENGTH - 2), r, /\.\./)
			lo = r[1]
			hi = r[2]
		}
		print name, lo, hi
		name = ""
	}
	/^  (-[A-Za-z], |    )--[a-z]/ {
		flush()
		match($0, /--[a-z][a-z-]*/)
		name = substr($0, RSTART + 2, RLENGTH - 2)
		text = $0
		next
	}
	/^                         / { text = text " " $0; next }
	{ flush() }
	END { flush() }' "$1"
}

# The man page: in OPTIONS, each .TP is followed by the option line, then its description;
# a range reads "LO to HI", HI a number or another option.
man_options() {
	awk '
	function flush() {
		if (name == "")
			return
		lo = hi = "-"
		if (match(text, /[0-9.]*[0-9] to (--[a-z][a-z-]*|[0-9.]*[0-9])/)) {
			split(substr(text, RSTART, RLENGTH), r, / to /)
			lo = r[1]
			hi = r[2]
			sub(/^--/, "", hi)
		}
		print name, lo, hi
		name = ""
	}
	/^\.SH/ { flush(); in_options = ($2 == "OPTIONS"); next }
	!in_options { next }
	{ gsub(/\\-/, "-"); gsub(/\\f[BIRP]/, "") }
	/^\.TP/ { flush(); header = 1; next }
	header {
		header = 0
		if (match($0, /--[a-z][a-z-]*/)) {
			name = substr($0, RSTART + 2, RLENGTH - 2)
			text = ""
		}
		next
	}
	{
		line = $0
		sub(/^\.[A-Z]+ */, "", line)
		gsub(/"/, "", line)
		text = text " " line
	}
	END { flush() }' "$1"
}

"$BIN" --help >"$TMP/help" 2>"$TMP/help.err"
ok $? "--help exits 0"
check "--help writes nothing on stderr" test ! -s "$TMP/help.err"
help_options "$TMP/help" | grep -v '^worker ' | sort >"$TMP/help.opts"
man_options "$MAN" | grep -v '^worker ' | sort >"$TMP/man.opts"
check "--help lists options ($(wc -l <"$TMP/help.opts"))" test -s "$TMP/help.opts"
check "the man page lists options ($(wc -l <"$TMP/man.opts"))" test -s "$TMP/man.opts"

cut -d' ' -f1 "$TMP/help.opts" >"$TMP/help.names"
cut -d' ' -f1 "$TMP/man.opts" >"$TMP/man.names"
comm -23 "$TMP/help.names" "$TMP/man.names" >"$TMP/only-help"
comm -13 "$TMP/help.names" "$TMP/man.names" >"$TMP/only-man"
check "every option of --help is in the man page" test ! -s "$TMP/only-help"
diag "$TMP/only-help"
check "every option of the man page is in --help" test ! -s "$TMP/only-man"
diag "$TMP/only-man"
check "--help does not list the internal --worker" ! grep -q -- '--worker' "$TMP/help"

# same LO HI LO HI: numbers compare as numbers (1e+07 is 10000000), names as names.
same() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN {
	exit !((a == c || a + 0 == c + 0 && a ~ /^[0-9]/) && (b == d || b + 0 == d + 0 && b ~ /^[0-9]/)) }'; }

while read -r name lo hi; do
	[ "$lo" = - ] && continue
	read -r _ mlo mhi < <(grep "^$name " "$TMP/man.opts")
	[ "${mlo:--}" = - ] && continue # the man page states no range here
	check "--$name: --help's range $lo..$hi is the man page's ($mlo to $mhi)" same "$lo" "$hi" "$mlo" "$mhi"
done <"$TMP/help.opts"
