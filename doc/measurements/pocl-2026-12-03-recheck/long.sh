#!/usr/bin/env bash
# The three arrangements of run.sh whose 0.5 s windows held a few batches each and broke
# device_busy >= of_ceiling window by window (doc/fields.md, Windows), again with windows that
# hold many batches (2 s; 4 s for the seed's 1M-symbol batches). Usage, from the repository root:
#   doc/measurements/pocl-2026-12-03-recheck/long.sh OUTDIR
set -u
O=$1 B=./gputop-decode
mkdir -p "$O"
export GPUTOP_DECODE_KERNELS=$PWD/kernels
r() { local n=$1; shift; $B --headless --calibrate -f jsonl -o "$O/$n.jsonl" "$@" 2>>"$O/stderr.txt"; echo "$n: exit $?"; }
r long-konly-f32-q8 -t f32 -m kernel-only --queues 8 -i 2 -D 10
r long-pipe-f32-q8 -t f32 -m pipelined --queues 8 -i 2 -D 10
r long-seed-1M-f64-4 -t f64 -s 1000000 -l 2 -n 4 -i 4 -D 20
python3 tools/check_figures.py "$O"/long-*.jsonl; echo "check_figures: exit $?"
