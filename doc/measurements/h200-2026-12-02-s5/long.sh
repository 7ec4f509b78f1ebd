#!/usr/bin/env bash
# One call on the H200 (build/gpu17): how the sampler's period and the observer's share settle
# in a long run of f32 (25 s; a 5 s bench run ends before they do), pipelined defaults and
# kernel-only on 8 queues, each beside the same under --profile off.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu17
export LD_LIBRARY_PATH=$PWD/$G/lib
O=$OUT/long; mkdir -p $O
date -u
i=0
for a in "-m pipelined" "-m kernel-only --queues 8"; do
	i=$((i+1))
	for p in sampled off; do
		$G/gputop-decode --headless -d 1:0 $a -t f32 --profile $p -D 25 -i 1 -f jsonl -o $O/l$i-$p.jsonl 2>>$O/stderr.txt
	done
	echo "== gputop-decode $a -t f32 -D 25 -i 1"
	python3 - $O/l$i <<'PY'
import json, sys
def rows(p):
    return [json.loads(l) for l in open(p) if l.startswith("{")]
s, o = rows(sys.argv[1] + "-sampled.jsonl"), rows(sys.argv[1] + "-off.jsonl")
w = [r for r in s if r.get("kind") == "worker"]
print("t_s sample_every observer_share:", " ".join(f"{r['t_s']:.0f}:{r.get('sample_every')}:{r.get('observer_share')}" for r in w))
for name, rs in (("sampled", s), ("off", o)):
    for a, b in ((2, 12), (12, 26)):
        m = [r["mbit_s"] for r in rs if r.get("kind") == "aggregate" and a <= r.get("t_s", 0) < b and r.get("mbit_s") is not None]
        busy = [r["device_busy"] for r in rs if r.get("kind") == "aggregate" and a <= r.get("t_s", 0) < b and r.get("device_busy") is not None]
        if m:
            print(f"{name:8s} [{a},{b}) s: {sum(m) / len(m):7.1f} Mbit/s" + (f", device_busy {sum(busy) / len(busy):.3f}" if busy else ""))
PY
done
cd $OUT && tar czf long.tgz long && rm -rf long
