#!/usr/bin/env bash
# One call on the H200 with the binary of this commit (build/gpu16): (1) the f32 host path, one
# enqueueing thread against one per queue, in the plain loop and the tool's pipelined worker;
# (2) the --report pages of the seed sweep and the pipelined sweep, and one pipelined process
# with the seed's generator (the sweep footer's prediction); (3) 1, 4 and 16 copies of an
# unmodified program (bench/seed_replica) unobserved, observed (sampled, with a trace) and
# observed with --profile off.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu16 D=doc/measurements/h200-2026-12-02-s5
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/r1 K=kernels/decode.cl; mkdir -p $O
s() { local n=$1; shift; echo "== $n: gputop-decode $*"; $G/gputop-decode -d 1:0 "$@" -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt | tee $O/$n.txt; }
h() { local n=$1; shift; echo "== $n: gputop-decode --headless $*"; $G/gputop-decode --headless -d 1:0 "$@" -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt >/dev/null; python3 bench/summarize.py $O/$n.jsonl | sed "s|^[^ ]*|$n|"; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1

echo "## (1) f32 host path"
for q in 2 4 8; do for v in pipe pipethreads; do $G/bench/ref_loop $K 1:0 f32 100000 10 2 $v $q; done; done
h f32-pipe-def --calibrate -m pipelined -t f32 -D 4 -i 0.5
for q in 2 4 8; do for p in sampled off; do h f32-pipe-q$q-$p -m pipelined -t f32 --queues $q --profile $p -D 4 -i 0.5; done; done

echo "## (2) reports"
s seed-f64 --sweep 1,2,4,8,16 -D 2 -i 0.5 -t f64 --calibrate --report $O/seed-report.html
s pipe-f64 -m pipelined --sweep 1x1,1x4,1x8 -D 2 -i 0.5 -t f64 --calibrate --report $O/pipe-report.html
h pipe-bm-f64 -m pipelined --generator box-muller -t f64 -D 4 -i 0.5 --calibrate

echo "## (3) observed copies"
for n in 1 4 16; do
	echo "-- unobserved: seed_replica, $n copies"
	timeout 30 $G/bench/seed_replica $K 1:0 f64 100000 10 4 $n
	for p in sampled off; do
		echo "-- observed through LD_PRELOAD, --profile $p: $n copies of seed_replica (1 copy each)"
		tr=; [ $p = sampled ] && tr="--trace $O/obs-$n.json"
		$G/gputop-decode --headless -d 1:0 -n $n --observe-via preload --profile $p -i 0.5 -f jsonl \
			-o $O/obs-$n-$p.jsonl $tr -- $G/bench/seed_replica $K 1:0 f64 100000 10 4 1 2>$O/obs-$n-$p.err
		grep -o "mbit_s=[0-9.]*" $O/obs-$n-$p.err | awk -F= '{s+=$2} END {printf "copies print %.1f Mbit/s in all\n", s}'
		python3 bench/summarize.py $O/obs-$n-$p.jsonl
	done
	python3 doc/measurements/h200-2026-12-02-s3/union.py $O/obs-$n.json $O/obs-$n-sampled.jsonl | tail -3
	gzip $O/obs-$n.json
done
date -u
cd $OUT && tar czf r1.tgz r1 && rm -rf r1
