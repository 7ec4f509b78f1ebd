#!/usr/bin/env bash
# The f32 pipelined host path and the seed's loop, one call on the H200 (build/gpu10: the
# binary of main at 68e0901, bench/ref_loop.c with the pipe variants, bench/seed_replica.c).
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu10
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=${OUT:-/tmp/out}/probe
mkdir -p $O
K=kernels/decode.cl D=1:0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u
python3 -c 'import numpy, time
t = time.perf_counter()
for i in range(50): a = numpy.random.normal(size=100000).astype(numpy.float64)
print("numpy normal+astype 100000: %.3f ms" % ((time.perf_counter() - t) / 50 * 1e3))' 2>&1
# The plain pipelined loop: what the driver gives to a batch's commands and nothing else.
for dt in f32 f64; do
	for q in 1 4 8 12; do
		for v in pipe pipeargs pipenoflush; do
			[ $dt = f64 ] && [ $v != pipe ] && continue
			$G/ref_loop $K $D $dt 100000 10 2 $v $q
		done
	done
	$G/ref_loop $K $D $dt 100000 10 2 plain 8
done
# The tool, pipelined and kernel-only, f32: steady half of 5 s runs.
run() { local n=$1; shift; $G/gputop-decode --headless -d $D -i 0.5 -D 5 -f jsonl -o $O/$n.jsonl "$@" 2>>$O/stderr.txt; }
run f32-ceiling -t f32 -m kernel-only -n 0 -D 0.5 --calibrate
for p in off sampled; do
	run f32-pipe-def-$p -t f32 -m pipelined --profile $p
	run f32-pipe-8x12-$p -t f32 -m pipelined --queues 8 --gen-threads 12 --profile $p
	run f32-pipe-8x4-$p -t f32 -m pipelined --queues 8 --gen-threads 4 --profile $p
	run f32-pipe-12x8-$p -t f32 -m pipelined --queues 12 --gen-threads 8 --profile $p
done
# The seed's loop: the replica and the tool's seed mode (box-muller, its default), f64.
for n in 1 4 16; do
	timeout 60 $G/seed_replica $K $D f64 100000 10 5 $n
	run f64-seed-$n-sampled -t f64 -m seed -n $n
	run f64-seed-$n-off -t f64 -m seed -n $n --profile off
done
python3 bench/summarize.py --from 2.5 $O/*.jsonl 2>&1 | head -60
python3 - $O/*seed*.jsonl <<'PY'
import json, sys
for f in sys.argv[1:]:
    a = [json.loads(l) for l in open(f) if l.startswith("{")]
    a = [x for x in a if x.get("kind") == "aggregate" and x.get("t_s", 0) >= 2.5 and x.get("gen_us") is not None]
    if a:
        print(f.split("/")[-1], "gen_us %.0f" % (sum(x["gen_us"] for x in a) / len(a)))
PY
cd ${OUT:-/tmp/out} && tar czf probe.tgz probe && rm -rf probe
