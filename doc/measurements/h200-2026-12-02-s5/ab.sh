#!/usr/bin/env bash
# One call on the H200 (build/gpu17, the binary of the bench): the observer's cost as a user
# measures it, with the host's drift shared out: each arrangement alternates --profile sampled
# and --profile off four times, 5 s each (the mean of the windows after 1.5 s); the share lost
# is 1 - mean(sampled) / mean(off), beside the observer_share the sampled runs report.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu17 D=doc/measurements/h200-2026-12-02-s5
export LD_LIBRARY_PATH=$PWD/$G/lib
O=$OUT/ab; mkdir -p $O
date -u
i=0
for a in "-m seed -n 1 -t f64" "-m seed -n 4 -t f64" "-m pipelined -t f32"; do
	i=$((i+1))
	for rep in 1 2 3 4; do for p in sampled off; do
		$G/gputop-decode --headless -d 1:0 $a --profile $p -D 5 -i 0.5 -f jsonl -o $O/a$i-$p-$rep.jsonl 2>>$O/stderr.txt
	done; done
	echo "== gputop-decode $a, --profile sampled against off, alternated 4 times"
	python3 - $O/a$i <<'PY'
import json, sys, statistics as st
def run(path):
    rows = [json.loads(l) for l in open(path) if l.startswith("{")]
    agg = [r["mbit_s"] for r in rows if r.get("kind") == "aggregate" and r.get("t_s", 0) >= 1.5 and r.get("mbit_s") is not None]
    sh = [r["observer_share"] for r in rows if r.get("kind") == "worker" and r.get("t_s", 0) >= 1.5 and r.get("observer_share") is not None]
    return st.mean(agg), (st.mean(sh) if sh else None)
s = [run(f"{sys.argv[1]}-sampled-{k}.jsonl") for k in range(1, 5)]
o = [run(f"{sys.argv[1]}-off-{k}.jsonl")[0] for k in range(1, 5)]
print("sampled Mbit/s", " ".join(f"{x[0]:.1f}" for x in s), " off", " ".join(f"{x:.1f}" for x in o))
print(f"mean sampled {st.mean(x[0] for x in s):.1f}  off {st.mean(o):.1f}  share lost {1 - st.mean(x[0] for x in s) / st.mean(o):.3f}"
      f"  (pairwise {' '.join(f'{1 - a[0] / b:.3f}' for a, b in zip(s, o))})"
      f"  observer_share reported {st.mean(x[1] for x in s if x[1] is not None):.3f}")
PY
done
cd $OUT && tar czf ab.tgz ab && rm -rf ab
