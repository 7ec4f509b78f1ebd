#!/usr/bin/env bash
# One call on the H200: the f32 pipelined defaults, the default sampled profiling against
# --profile off, alternated eight times (4 s each, the order turning), beside the plain
# pipelined loop on normals and diag.sh's binary without generation (GD_EXP_NOGEN=1, off);
# calibrated before and after.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
export LD_LIBRARY_PATH=$PWD/build/gpu20/lib
X=build/gpu21/gputop-decode R=build/gpu21/bench/ref_loop
O=$OUT/share K=kernels/decode.cl; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
run() { # name env args...
	local n=$1 e=$2; shift 2
	env $e $X --headless -d 1:0 -t f32 -m pipelined "$@" -D 4 -i 0.5 -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt
	python3 bench/summarize.py $O/$n.jsonl | sed "s|^[^ ]*|$n $e $*|"
}
$X --headless -d 1:0 -t f32 -m kernel-only -n 0 -D 0.5 --calibrate -f jsonl -o $O/ceiling-a.jsonl 2>>$O/stderr.txt
grep -o '"ceiling":[0-9.]*' $O/ceiling-a.jsonl | head -1
for rep in 1 2 3 4 5 6 7 8; do
	$R $K 1:0 f32 100000 10 2 pipe 8 normal
	for i in 0 1 2; do
		case $(((i + rep) % 3)) in
		0) run sampled-$rep GD_EXP_NONE=1 ;;
		1) run off-$rep GD_EXP_NONE=1 --profile off ;;
		2) run nogen-$rep GD_EXP_NOGEN=1 --profile off ;;
		esac
	done
done
$X --headless -d 1:0 -t f32 -m kernel-only -n 0 -D 0.5 --calibrate -f jsonl -o $O/ceiling-b.jsonl 2>>$O/stderr.txt
grep -o '"ceiling":[0-9.]*' $O/ceiling-b.jsonl | head -1
date -u
cd $OUT && tar czf share.tgz share && rm -rf share
