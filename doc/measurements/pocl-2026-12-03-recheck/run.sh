#!/usr/bin/env bash
# The arrangements of every log tools/check_figures.py flags (all written on the H200 by
# binaries before issue 19's changes, doc/measurements/CHECKS.md), run again with the current
# binary on PoCL (sizes cut to what 2 cores finish), each with --calibrate so that of_ceiling is
# checked, then the checker over what they wrote. Usage, from the repository root:
#   doc/measurements/pocl-2026-12-03-recheck/run.sh OUTDIR
set -u
O=$1 B=./gputop-decode
mkdir -p "$O"
export GPUTOP_DECODE_KERNELS=$PWD/kernels
r() { local n=$1; shift; $B --headless -i 0.5 --calibrate -f jsonl -o "$O/$n.jsonl" "$@" 2>>"$O/stderr.txt"; echo "$n: exit $?"; }
r seed-f32-8 -t f32 -n 8 -D 4                    # h200-2026-11-30-bench-final/100000-f32-seed-8, restructure/*seed-8
r seed-1M-f64-4 -t f64 -s 1000000 -l 2 -n 4 -D 8  # */1000000-f64-seed-4, restructure/*seed-2
r seed-1M-f64-8 -t f64 -s 1000000 -l 2 -n 8 -D 8  # */1000000-f64-seed-8
r seed-1M-f64-16 -t f64 -s 1000000 -l 2 -n 16 -D 8 # */1000000-f64-seed-16
r seed-f64-16 -t f64 -n 16 -D 6                  # profile/run2/seed-f64-sampled-n16, observer/obs-seed16-adapt
r konly-f32-q1 -t f32 -m kernel-only --queues 1 -D 4   # profile/run1/konly-f32-sampled-q1
r konly-f64-q1 -t f64 -m kernel-only --queues 1 -D 4   # profile/run1/konly-f64-sampled-q1, observer/probe, obs-f64-adapt
r konly-f32-q8 -t f32 -m kernel-only --queues 8 -D 4   # h200-2026-12-01-observer/check*/k8f32-*
r pipe-f32-q8 -t f32 -m pipelined --queues 8 -D 4      # h200-2026-12-01-observer/check3/p8f32-sampled
r saxpy-pipe-sweep --kernel kernels/examples/saxpy.cl --arg a=2 -s 1048576 -m pipelined --sweep 1x1,1x2,1x4,1x8 -D 2
	# h200-2026-11-30-kernels/saxpy-pipelined-1x1_1x2_1x4_1x8
r pipe-f64-sweep -t f64 -m pipelined --sweep 1x8,4x4 -D 3   # h200-2026-12-02-final/why.tgz: why/pipe-f64
python3 tools/check_figures.py "$O"; echo "check_figures: exit $?"
