#!/usr/bin/env bash
# Every client program of tests/fixtures that uses OpenCL, alone and observed, against its own
# ground truth, on PoCL (this machine): the suite's own scripts, run whole, their TAP output kept.
#   test_observe_patterns.sh  cl_patterns and cl_patterns.py, every mode, with and without their
#                             own profiling, alone and observed under full and sampled: results,
#                             API answers, counts exact; kernel, transfer, copy time within 5% of
#                             the program's own events; device_busy never above them
#   test_observe_selfprof.sh  cl_selfprof (C, every way of asking for profiling, in and out of
#                             order, both load paths) and a PyOpenCL program that profiles itself,
#                             under full, sampled and off
#   test_observe.sh           cl_counts (exact counts, threads, forks), seed_app.py at 1 and 2
#                             copies (rates against what it prints), a sampled run of 200 batches
# cl_cost is the GPU's cost program (doc/measurements/h100-2026-12-06-cost); hopper and reaper
# test the process family, not OpenCL. Usage, from the tree after `make fixtures`: run.sh OUTDIR
set -u
O=$1
mkdir -p "$O"
for t in test_observe_patterns test_observe_selfprof test_observe; do
	bash "tests/integration/$t.sh" >"$O/$t.tap" 2>&1
	echo "$t: exit $?, $(grep -c '^ok ' "$O/$t.tap") ok, $(grep -c '^not ok ' "$O/$t.tap") not ok"
done
