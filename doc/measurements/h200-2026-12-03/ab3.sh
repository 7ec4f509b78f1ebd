#!/usr/bin/env bash
# One call on the H200 (build/gpu20, the binary of the bench): the observer's cost as a user
# measures it, for the two f32 rows of the bench whose reported and lost shares were furthest
# apart. Each arrangement alternates --profile sampled and --profile off three times, 5 s each
# (the mean of the windows after 1.5 s); the share lost is 1 - mean(sampled) / mean(off), beside
# the observer_share the sampled runs report.
# Last, the plain loop (ref_loop of the next commit: an optional last argument chooses its
# inputs) with zeros, as in the bench, and with standard normals, as the tool's workers: plain
# on 8 queues and pipe on 8 queues, alternated twice, 3 s each.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu20
export LD_LIBRARY_PATH=$PWD/$G/lib
O=$OUT/ab3; mkdir -p $O
date -u
summary() { # PREFIX FROM: the means of each run's aggregate windows from FROM s
	python3 - "$1" "$2" <<'PY'
import glob, json, sys, statistics as st
def run(path):
    rows = [json.loads(l) for l in open(path) if l.startswith("{")]
    t0 = float(sys.argv[2])
    agg = [r["mbit_s"] for r in rows if r.get("kind") == "aggregate" and r.get("t_s", 0) >= t0 and r.get("mbit_s") is not None]
    sh = [r["observer_share"] for r in rows if r.get("kind") == "worker" and r.get("t_s", 0) >= t0 and r.get("observer_share") is not None]
    return st.mean(agg), (st.mean(sh) if sh else None)
s = [run(f) for f in sorted(glob.glob(sys.argv[1] + "-sampled-*.jsonl"))]
o = [run(f)[0] for f in sorted(glob.glob(sys.argv[1] + "-off-*.jsonl"))]
print("sampled Mbit/s", " ".join(f"{x[0]:.1f}" for x in s), " off", " ".join(f"{x:.1f}" for x in o))
print(f"mean sampled {st.mean(x[0] for x in s):.1f}  off {st.mean(o):.1f}  share lost {1 - st.mean(x[0] for x in s) / st.mean(o):.3f}"
      f"  (pairwise {' '.join(f'{1 - a[0] / b:.3f}' for a, b in zip(s, o))})"
      f"  observer_share reported " + (f"{st.mean(r):.3f}" if (r := [x[1] for x in s if x[1] is not None]) else "none"))
PY
}
i=0
for a in "-m pipelined" "-m kernel-only --queues 1"; do
	i=$((i+1))
	for rep in 1 2 3; do for p in sampled off; do
		$G/gputop-decode --headless -d 1:0 -t f32 $a --profile $p -D 5 -i 0.5 -f jsonl -o $O/a$i-$p-$rep.jsonl 2>>$O/stderr.txt
	done; done
	echo "== gputop-decode -t f32 $a, --profile sampled against off, alternated 3 times"
	summary $O/a$i 1.5
done
echo "== ref_loop, zeros against normals"
for rep in 1 2; do for v in plain pipe; do for x in zeros normal; do
	printf '%s ' $x; $G/bench/ref_loop kernels/decode.cl 1:0 f32 100000 10 3 $v 8 $x
done; done; done
date -u
cd $OUT && tar czf ab3.tgz ab3 && rm -rf ab3
