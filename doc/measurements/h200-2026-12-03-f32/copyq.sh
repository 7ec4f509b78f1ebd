#!/usr/bin/env bash
# One call on the H200: copies on queues of their own. build/gpu21/gputop-decode is diag.sh's
# binary with one more knob (experiment only): GD_EXP_COPYQ=1 puts each batch's write on a copy
# queue of its lane, the first launch waiting for its event; =2 also the read, on a third queue,
# after the last launch's event. build/gpu21/bench/ref_loop has the same as plain loops
# (pipewrite, pipecopy). f32 on normals, --profile off, alternated five times; then sampled and
# calibrated; then f64.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
export LD_LIBRARY_PATH=$PWD/build/gpu20/lib
X=build/gpu21/gputop-decode R=build/gpu21/bench/ref_loop
O=$OUT/copyq K=kernels/decode.cl; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
run() { # name env dtype args...
	local n=$1 e=$2 t=$3; shift 3
	env $e $X --headless -d 1:0 -t $t -m pipelined "$@" -D 4 -i 0.5 -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt
	python3 bench/summarize.py $O/$n.jsonl | sed "s|^[^ ]*|$n $e $*|"
}
for rep in 1 2 3 4 5; do
	for v in pipe pipewrite pipecopy; do $R $K 1:0 f32 100000 10 2 $v 8 normal; done
	# The order turns each time: no binary always runs first after the plain loops.
	for i in 0 1 2 3; do
		case $(((i + rep) % 4)) in
		0) run def-$rep GD_EXP_COPYQ=0 f32 --profile off ;;
		1) run cq1-$rep GD_EXP_COPYQ=1 f32 --profile off ;;
		2) run cq2-$rep GD_EXP_COPYQ=2 f32 --profile off ;;
		3) run g6-$rep GD_EXP_COPYQ=0 f32 --gen-threads 6 --profile off ;;
		esac
	done
done
for rep in 1 2; do
	for c in 0 1 2; do run cal-cq$c-$rep GD_EXP_COPYQ=$c f32 --calibrate; done
done
for rep in 1 2; do
	for v in pipe pipewrite pipecopy; do $R $K 1:0 f64 100000 10 2 $v 8 normal; done
	for c in 0 1 2; do run f64-cq$c-$rep GD_EXP_COPYQ=$c f64 --profile off; done
done
for c in 0 1 2; do
	GD_EXP_COPYQ=$c $X --headless -d 1:0 -t f32 -m pipelined --verify -D 2 -i 0.5 -f jsonl -o $O/verify-cq$c.jsonl 2>>$O/stderr.txt
	echo "verify cq$c: $(grep -c '"state":"failed"' $O/verify-cq$c.jsonl) failed"
done
date -u
cd $OUT && tar czf copyq.tgz copyq && rm -rf copyq
