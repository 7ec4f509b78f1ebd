#!/usr/bin/env bash
# One call on the H200: what the binary of d232056 (build/gpu24) says with a calibrated ceiling:
# the calibration at 50000, 200000 and 400000 f32 symbols (twice each), then the report page of
# a pipelined run and of a two-step sweep, f32 and f64 at 100000 symbols (default options beside
# --calibrate).
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
export LD_LIBRARY_PATH=$PWD/build/gpu20/lib
X=build/gpu24/gputop-decode O=$OUT/words; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
for rep in 1 2; do
	for s in 50000 200000 400000; do
		$X --headless -d 1:0 -t f32 -s $s -m kernel-only -n 0 -D 0.2 --calibrate -f jsonl -o $O/cal-$s-$rep.jsonl 2>>$O/stderr.txt
		echo "calibrate f32 size $s: $(grep -o '"ceiling[_4x]*":[0-9.]*' $O/cal-$s-$rep.jsonl | head -2 | tr '\n' ' ')"
	done
done
for t in f32 f64; do
	$X --headless -d 1:0 -t $t -m pipelined --calibrate -D 4 -i 0.5 -f jsonl -o $O/run-$t.jsonl --report $O/run-$t.html 2>>$O/stderr.txt
	echo "run $t: $(python3 bench/summarize.py $O/run-$t.jsonl)"
	grep -o '<p class="diag">[^<]*' $O/run-$t.html
	$X -d 1:0 -t $t -m pipelined --sweep 1,2 -D 3 --calibrate --report $O/sweep-$t.html 2>>$O/stderr.txt | tail -3
	grep -o '<p class="diag">[^<]*' $O/sweep-$t.html
done
date -u
cd $OUT && tar czf words.tgz words && rm -rf words
