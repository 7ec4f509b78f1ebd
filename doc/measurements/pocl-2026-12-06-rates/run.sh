#!/usr/bin/env bash
# The estimate of an unprofiled batch under --profile sampled, on PoCL (this 2-core machine):
# cl_patterns many -b 400 -n 20 (400 batches of 20 tiny launches and a clFinish). Its truth is
# the program's own events: the same program with --own-profiling, observed under off (its queue
# read directly, nothing added). Then observed without --own-profiling under sampled, with the
# library of the latest profiled batch's rates (OLD, a path) and with the rates over recent
# profiled batches (the tree's). Five rounds, in turn. Usage: run.sh OLD_LIBRARY
set -u
OLD=$1
B=${BUILD:-build/plain}
P="$B/fixtures/cl_patterns many -b 400 -n 20"
T=$(mktemp -d)
row() { # LABEL: the log's last row and the program's own kernel_s
	python3 - "$T/l.jsonl" "$1" "$T/e.txt" <<'PY'
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
last = [x for x in rows if x.get("kind") == "worker" and x.get("launches")][-1]
m = re.search(r'"kernel_s":([0-9.e-]+|null)', open(sys.argv[3]).read())
print("%-10s kernel_s %.6f program_kernel_s %s sample_every %s batches %s"
      % (sys.argv[2], last.get("kernel_s") or 0, m.group(1) if m else None, last.get("sample_every"), last.get("batches")))
PY
}
for r in 1 2 3 4 5; do
	# shellcheck disable=SC2086
	./gputop-decode --headless --profile off -i 0.25 -f jsonl -o "$T/l.jsonl" -- $P --own-profiling 2>"$T/e.txt" >/dev/null
	echo "r$r $(row truth)"
	# shellcheck disable=SC2086
	GPUTOP_DECODE_OBSERVE_LIB=$OLD ./gputop-decode --headless --profile sampled -i 0.25 -f jsonl -o "$T/l.jsonl" -- $P 2>"$T/e.txt" >/dev/null
	echo "r$r $(row latest)"
	# shellcheck disable=SC2086
	./gputop-decode --headless --profile sampled -i 0.25 -f jsonl -o "$T/l.jsonl" -- $P 2>"$T/e.txt" >/dev/null
	echo "r$r $(row recent)"
done
rm -rf "$T"
