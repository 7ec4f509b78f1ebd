#!/usr/bin/env bash
# One call on the H200: where the f32 pipelined worker loses against the plain pipelined loop.
# build/gpu21/gputop-decode is commit 7372ff3 with three knobs read from the environment
# (experiment only, never shipped): GD_EXP_NOGEN (each batch generated once, then reused: no
# generation after the first round), GD_EXP_NOFLUSH (no clFlush after a batch), GD_EXP_DEPTH=N
# (N batches in flight per lane, not 2). Without them it is the shipped code. The plain loops
# (build/gpu20/bench, 948de9f) on zeros and on normals. f32 --profile off, 4 s a run, alternated
# three times; then kernel-only on one queue, sampled against off, alternated four times (5 s);
# then the defaults sampled and calibrated.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
export LD_LIBRARY_PATH=$PWD/build/gpu20/lib
X=build/gpu21/gputop-decode B=build/gpu20/bench
O=$OUT/diag K=kernels/decode.cl; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
ref() { $B/ref_loop $K 1:0 f32 100000 10 2 "$@"; }
run() { # name env args...
	local n=$1 e=$2; shift 2
	env $e $X --headless -d 1:0 -t f32 -m pipelined "$@" -D 4 -i 0.5 -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt
	python3 bench/summarize.py $O/$n.jsonl | sed "s|^[^ ]*|$n $e $*|"
}
for rep in 1 2 3; do
	for v in zeros normal; do ref pipe 8 $v; ref plain 8 $v; done
	run def-$rep GD_EXP_NONE=1 --profile off
	run nogen-$rep GD_EXP_NOGEN=1 --profile off
	run noflush-$rep GD_EXP_NOFLUSH=1 --profile off
	run depth1-$rep GD_EXP_DEPTH=1 --profile off
	run q4-$rep GD_EXP_NONE=1 --queues 4 --profile off
	run q6-$rep GD_EXP_NONE=1 --queues 6 --profile off
	run g6-$rep GD_EXP_NONE=1 --gen-threads 6 --profile off
done
for rep in 1 2 3 4; do
	for p in sampled off; do
		$X --headless -d 1:0 -t f32 -m kernel-only --queues 1 --profile $p -D 5 -i 0.5 -f jsonl \
			-o $O/konly1-$p-$rep.jsonl 2>>$O/stderr.txt
		python3 bench/summarize.py $O/konly1-$p-$rep.jsonl
	done
done
for rep in 1 2; do
	run def-cal-$rep GD_EXP_NONE=1 --calibrate
	run nogen-cal-$rep GD_EXP_NOGEN=1 --calibrate
done
date -u
cd $OUT && tar czf diag.tgz diag && rm -rf diag
