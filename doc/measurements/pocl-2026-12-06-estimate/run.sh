#!/usr/bin/env bash
# The estimate of an unprofiled batch against the program's own times of the same run, on PoCL
# (this 2-core machine): cl_patterns profiling its own queue, observed with --profile sampled
# --sample-every 4 (its first two batches read, then one in 4; the rest estimated), with three
# libraries in turn: per unit of work with the first batch kept (UNIT_FIRST, a path), per unit
# with the first batch dropped once a second is read (UNIT, a path: the tree with unit.patch),
# and the tree's (per unit and by the share of the span, each weighed by how well it predicted
# the batches read). Each round runs under each load of LOADS (default "0 2 4"): N other
# processes that keep the CPU device busy, N+M those and M shell loops that keep the host's
# cores busy besides. Usage: [LOADS=...] run.sh UNIT_FIRST UNIT
set -u
declare -A LIB=([unit-first]=$1 [unit]=$2 [both]="")
B=${BUILD:-build/plain}
CP="$B/fixtures/cl_patterns"
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
row() { # ROUND LOAD PATTERN VARIANT: the run's kernel_s and copy_s, and the program's own
	python3 - "$T/l.jsonl" "$T/e.txt" "$@" <<'PY'
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
last = [x for x in rows if x.get("kind") == "worker" and x.get("launches")][-1]
text = "".join(l[4:].rstrip("\n") for l in open(sys.argv[2]) if l.startswith("[1] "))
own = json.loads(text[text.find('{"mode"'):])
print("r%s load%s %-9s %-10s kernel_s %.6f own %.6f copy_s %.6f own %.6f sample_every %s batches %s"
      % (*sys.argv[3:7], last["kernel_s"], own["kernel_s"], last["copy_s"], own["copy_s"],
         last.get("sample_every"), last.get("batches")))
PY
}
PATTERNS=("short -b 40 -n 10" "callback -b 40 -n 10" "poll -b 40 -n 10" "copyfill -b 40 --mib 16")
for r in 1 2 3; do
	for load in ${LOADS:-0 2 4}; do
		cl=${load%+*} host=0
		[ "$cl" != "$load" ] && host=${load#*+}
		for ((i = 0; i < cl; i++)); do
			"$CP" short -b 1000000 -n 10 >/dev/null &
		done
		for ((i = 0; i < host; i++)); do
			bash -c 'while :; do :; done' &
		done
		for p in "${PATTERNS[@]}"; do
			for v in unit-first unit both; do
				# shellcheck disable=SC2086 # the pattern's arguments are words
				GPUTOP_DECODE_OBSERVE_LIB=${LIB[$v]} ./gputop-decode --headless --profile sampled \
					--sample-every 4 -i 0.25 -f jsonl -o "$T/l.jsonl" -- "$CP" $p --own-profiling \
					2>"$T/e.txt" >/dev/null
				row $r "$load" "${p%% *}" $v
			done
		done
		[ "$load" != 0 ] && { jobs -p | xargs -r kill; wait 2>/dev/null; }
	done
done
