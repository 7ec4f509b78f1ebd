#!/usr/bin/env bash
# One call on the H200 with the binary of this commit (build/gpu15): the reports of a seed sweep
# and a pipelined sweep, the seed's loop beside both replicas (C, and Python with numpy's own
# normal), the check of "one pipelined process" (pipelined with the seed's generator), f32
# pipelined arrangements under --profile off, and unmodified programs observed through
# LD_PRELOAD (copies of bench/seed_replica) beside the same copies unobserved.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu15
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/why; mkdir -p $O
K=kernels/decode.cl T=4
s() { local n=$1; shift; echo "== $n: gputop-decode $*"; $G/gputop-decode -d 1:0 "$@" -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt | tee $O/$n.txt; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
s seed-f64 --sweep 1,2,4,8,16 -D $T -i 0.5 -t f64 --calibrate --report $O/seed-report.html
echo "== replicas (C, then numpy), 1 2 4 8 16 copies"
for n in 1 2 4 8 16; do timeout 120 $G/bench/seed_replica $K 1:0 f64 100000 10 $T $n; done
for n in 1 2 4 8 16; do timeout 120 python3 bench/seed_replica.py $K 1:0 f64 100000 10 $T $n; done
s pipe-f64 -m pipelined --sweep 1x1,1x4,1x8 -D $T -i 0.5 -t f64 --calibrate --report $O/pipe-report.html
echo "== one pipelined process with the seed's generator (the check of the seed sweep's footer)"
s pipe-bm -m pipelined --generator box-muller -D 6 -i 0.5 -t f64 --headless
python3 bench/summarize.py --from 3 $O/pipe-bm.jsonl
echo "== f32 pipelined, --profile off: queues x generation threads"
s f32-ceiling -m kernel-only -n 0 -D 0.5 -t f32 --calibrate --headless
for q in 2 4 8; do for g in 4 15; do
	s f32-q$q-g$g -m pipelined --queues $q --gen-threads $g --profile off -D $T -i 0.5 -t f32 --headless >/dev/null
	echo "f32 pipelined q=$q g=$g: $(python3 bench/summarize.py --from 2 $O/f32-q$q-g$g.jsonl | grep -m1 -i mbit)"
done; done
echo "== observed through LD_PRELOAD: N copies of seed_replica (1 copy each, 6 s), sampled and off"
for n in 1 4 16; do for p in sampled off; do
	echo "-- observe $n copies, --profile $p"
	$G/gputop-decode --headless -d 1:0 -n $n --observe-via preload --profile $p -i 0.5 -f jsonl \
		-o $O/obs-$n-$p.jsonl --trace $O/obs-$n-$p.json -- $G/bench/seed_replica $K 1:0 f64 100000 10 6 1 \
		2>$O/obs-$n-$p.err
	grep -o "mbit_s=[0-9.]*" $O/obs-$n-$p.err | awk -F= '{s+=$2} END {printf "copies print %.1f Mbit/s in all\n", s}'
	# The tool's rate is in work items (10 launches of 100000 a batch): / 10 is batches/s x 100000.
	python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])]
a=[x for x in r if x.get("kind")=="aggregate" and 1.5<=x.get("t_s",0)<=5.5 and x.get("mbit_s") is not None]
m=lambda k:sum(x.get(k) or 0 for x in a)/max(len(a),1)
print("tool: batches/s x 100000 = %.1f Mbit/s, device_busy %.3f over %d windows" % (m("mbit_s")/10, m("device_busy"), len(a)))' $O/obs-$n-$p.jsonl
	[ $p = sampled ] && python3 doc/measurements/h200-2026-12-02-s3/union.py $O/obs-$n-$p.json $O/obs-$n-$p.jsonl
done; done
cd $OUT && tar czf why.tgz why && rm -rf why
