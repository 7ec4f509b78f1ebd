#!/usr/bin/env bash
# The calibration's figure at 4x the size (ceiling_4x) on PoCL (the 2-core development machine),
# beside the plain launches-only loop at 1x and 4x the size: twice each size, f64, 10 launches.
set -u
X=./gputop-decode R=build/plain/bench/ref_loop K=kernels/decode.cl O=${OUT:-/tmp}/pocl-c4x
mkdir -p $O
{ date -u; nproc; } 2>&1
for rep in 1 2; do
	for s in 1000 4000 20000 100000; do
		$X --headless -s $s -m kernel-only -n 0 -D 0.2 --calibrate -f jsonl -o $O/cal-$s-$rep.jsonl 2>>$O/stderr.txt
		echo "calibrate size $s: $(grep -o '"ceiling[_4x]*":[0-9.]*' $O/cal-$s-$rep.jsonl | head -2 | tr '\n' ' ')"
		$R $K 0:0 f64 $s 10 1 plain 8 normal
		$R $K 0:0 f64 $((4 * s)) 10 1 plain 8 normal
	done
done
date -u
