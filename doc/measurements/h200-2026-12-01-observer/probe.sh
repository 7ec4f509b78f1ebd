#!/usr/bin/env bash
# Where does the observer's hidden cost come from? A probe build (the last landed commit plus two
# environment switches read by the worker, not shipped): GDX_NOPROF=1 never profiles a batch
# (the profiling queues exist, idle); GDX_NOQ=1 creates no profiling queue and profiles nothing.
# Each against --profile off and the shipped sampler, interleaved, two repetitions.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=${G:-build/gpux}
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/probe
mkdir -p $O
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; nproc; command -v perf; } >$O/host.txt 2>&1
run() { # NAME VAR=VALUE ARGS...
	local name=$1 var=$2; shift 2
	env "$var" $G/gputop-decode --headless -d 1:0 -i 0.5 -D 3 -f jsonl -o $O/$name.jsonl "$@" 2>>$O/stderr.txt
}
for dt in f32 f64; do
	$G/gputop-decode --headless -d 1:0 -t $dt -m kernel-only -n 0 -D 0.5 --calibrate -f jsonl -o $O/ceiling-$dt.jsonl 2>>$O/stderr.txt
done
for rep in 1 2; do
	for cfg in "k8f32:-m kernel-only --queues 8 -t f32" "p8f32:-m pipelined --queues 8 --gen-threads 12 -t f32" "k1f64:-m kernel-only --queues 1 -t f64"; do
		tag=${cfg%%:*} args=${cfg#*:}
		run $tag-off-$rep X=1 $args --profile off
		run $tag-sampled-$rep X=1 $args
		run $tag-every4096-$rep X=1 $args --sample-every 4096
		run $tag-noprof-$rep GDX_NOPROF=1 $args
		run $tag-noq-$rep GDX_NOQ=1 $args
	done
done
for q in 1 8; do $G/ref_loop kernels/decode.cl 1:0 f32 100000 10 2 plain $q >>$O/ref.txt 2>&1; done
$G/ref_loop kernels/decode.cl 1:0 f64 100000 10 2 plain 1 >>$O/ref.txt 2>&1
if command -v perf >/dev/null; then
	for p in off sampled; do
		perf record -F 2999 -g -o $O/perf-$p.data -- $G/gputop-decode --headless -d 1:0 -i 0.5 -D 3 -m pipelined --queues 8 --gen-threads 12 -t f32 --profile $p -f jsonl -o $O/perf-$p.jsonl >$O/perf-$p.rec.txt 2>&1
		perf report -i $O/perf-$p.data --stdio --no-children --sort comm,dso,sym 2>/dev/null | grep -v '^$' | head -150 >$O/perf-$p.txt
		rm -f $O/perf-$p.data
	done
fi
cd $OUT && tar czf probe.tgz probe && rm -rf probe
