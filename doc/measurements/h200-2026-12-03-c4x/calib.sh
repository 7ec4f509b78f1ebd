#!/usr/bin/env bash
# One call on the H200: the calibration's figure at 4x the size (ceiling_4x), checked against
# the plain launches-only loop at 1x and 4x the size and against the calibration at 4x the
# size itself; the binary before it (build/gpu20, 948de9f) beside it for the calibration's
# figure and duration; then the pipelined defaults at 100000 symbols and a sweep's table note.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
export LD_LIBRARY_PATH=$PWD/build/gpu20/lib
X=build/gpu22/gputop-decode OLD=build/gpu20/gputop-decode R=build/gpu21/bench/ref_loop
O=$OUT/c4x K=kernels/decode.cl; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
cal() { # name binary dtype size
	local t0 t1
	t0=$(date +%s.%N)
	$2 --headless -d 1:0 -t $3 -s $4 -m kernel-only -n 0 -D 0.2 --calibrate -f jsonl -o $O/$1.jsonl 2>>$O/stderr.txt
	t1=$(date +%s.%N)
	echo "$1 $3 size $4: $(grep -o '"ceiling[_4x]*":[0-9.]*' $O/$1.jsonl | head -2 | tr '\n' ' ') wall $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s"
}
for rep in 1 2 3; do
	for t in f32 f64; do
		if [ $((rep % 2)) = 1 ]; then
			cal new-$t-100000-$rep $X $t 100000; cal old-$t-100000-$rep $OLD $t 100000
		else
			cal old-$t-100000-$rep $OLD $t 100000; cal new-$t-100000-$rep $X $t 100000
		fi
		cal new-$t-400000-$rep $X $t 400000
		$R $K 1:0 $t 100000 10 2 plain 8 normal
		$R $K 1:0 $t 400000 10 2 plain 8 normal
	done
done
for rep in 1 2; do
	$X --headless -d 1:0 -t f32 -m pipelined --calibrate -D 5 -i 0.5 -f jsonl -o $O/pipe-$rep.jsonl 2>>$O/stderr.txt
	echo "pipelined f32 100000 rep $rep: $(python3 bench/summarize.py $O/pipe-$rep.jsonl)  $(grep -o '"ceiling[_4x]*":[0-9.]*' $O/pipe-$rep.jsonl | head -2 | tr '\n' ' ')"
done
$X -d 1:0 -t f32 -m pipelined --sweep 1,2 -D 3 --calibrate -f jsonl -o $O/sweep-f32.jsonl 2>>$O/stderr.txt
$X -d 1:0 -t f64 -m pipelined --sweep 1,2 -D 3 --calibrate -f jsonl -o $O/sweep-f64.jsonl 2>>$O/stderr.txt
date -u
cd $OUT && tar czf c4x.tgz c4x && rm -rf c4x
