#!/usr/bin/env bash
# The second call on the H200 (binary build/gpu33: the hot path without getpid, timed calls only
# where the sampler needs them):
# A. the cost of looking again: cl_cost launch 200 1000, alone and observed under off, sampled
#    and full, five interleaved rounds;
# B. clpeak (Debian's 1.1.2, unpacked), alone and observed under sampled, two interleaved pairs;
#    one observed run with a trace: device_busy against the trace's union;
# C. the recorder's patterns on NVIDIA: tests/fixtures/cl_patterns, each mode profiling itself
#    (its own kernel, transfer and copy times are the truth), alone and observed under full and
#    sampled, checked by tests/integration/check_patterns.py;
# D. seed_app.py with 4 processes, three more interleaved pairs.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu33
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
mkdir -p /tmp/py && for d in $G/debs/*.deb; do dpkg -x $d /tmp/py; done
PYLIB=/tmp/py/usr/lib/x86_64-linux-gnu
PY="env PYTHONHOME=/tmp/py/usr PYTHONPATH=/tmp/py/usr/lib/python3/dist-packages LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:$PYLIB:$PYLIB/blas:$PYLIB/lapack /tmp/py/usr/bin/python3.11"
O=$OUT/after2; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } 2>&1
D=$($G/gputop-decode --list-devices 2>/dev/null | awk '$2=="GPU"{print $1; exit}')
obs() { # NAME PROFILE CMD...
	local n=$1 p=$2; shift 2
	timeout 150 $G/gputop-decode --headless -d $D -i 0.5 --profile $p -f jsonl -o $O/$n.jsonl -- "$@" >$O/$n.out 2>$O/$n.err
	echo "rc=$?"
}
echo "== A: cost, ns per launch (cl_cost launch 200 1000)"
C="$G/fixtures/cl_cost launch 200 1000"
for r in 1 2 3 4 5; do
	echo "r$r alone $(timeout 60 $C 2>&1 | grep -o '"ns_per_launch":[0-9.]*')"
	for p in off sampled full; do
		x=$(obs cost-r$r-$p $p $C)
		echo "r$r $p $x $(grep -o '"ns_per_launch":[0-9.]*' $O/cost-r$r-$p.err)"
	done
done
echo "== B: clpeak"
K="/tmp/py/usr/bin/clpeak -p 0 -d 0 --global-bandwidth --compute-sp --transfer-bandwidth --kernel-latency"
for r in 1 2; do
	timeout 150 $K >$O/clpeak-r$r-alone.out 2>&1; echo "r$r alone rc=$?"
	x=$(obs clpeak-r$r sampled $K); echo "r$r observed $x"
done
timeout 150 $G/gputop-decode --headless -d $D -i 0.5 -f jsonl -o $O/clpeak-trace.jsonl --trace $O/clpeak.trace -- $K >$O/clpeak-trace.out 2>$O/clpeak-trace.err
echo "traced rc=$?"
python3 - $O/clpeak-trace.jsonl $O/clpeak.trace <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
ev = json.load(open(sys.argv[2]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
ks = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("ph") == "X" and e.get("name", "").startswith("kernel") and "estimated" not in e.get("name", ""))
def union(a, b):
    tot, end = 0.0, a
    for s, e in ks:
        s, e = max(s, end), min(e, b)
        if e > s:
            tot += e - s
            end = e
    return tot
agg = [r for r in rows if r.get("kind") == "aggregate" and r.get("device_busy") is not None]
worst = 0
for r in agg:
    b = r["t_s"] * 1e6; a = b - r["window_s"] * 1e6
    u = union(a, b) / (b - a)
    worst = max(worst, abs(u - r["device_busy"]))
print("clpeak traced: %d windows, worst |device_busy - trace union| %.4f, mean busy %.3f" % (len(agg), worst, sum(r["device_busy"] for r in agg) / max(1, len(agg))))
PY
echo "== C: patterns (C), each profiling itself"
P=$G/fixtures/cl_patterns
for m in many long short poll callback copyfill tasks maps images; do
	timeout 120 $P $m --own-profiling >$O/pat-$m.alone 2>&1
	for p in full sampled; do
		x=$(obs pat-$m-$p $p $P $m --own-profiling)
		t=; [ $p = full ] && t=--times
		echo "$m $p $x: $(python3 tests/integration/check_patterns.py $m-$p $O/pat-$m.alone $O/pat-$m-$p.err $O/pat-$m-$p.jsonl $t | grep -c '^PASS') pass, failing: $(python3 tests/integration/check_patterns.py $m-$p $O/pat-$m.alone $O/pat-$m-$p.err $O/pat-$m-$p.jsonl $t | grep '^FAIL' | cut -c1-200 | tr '\n' ';')"
	done
done
echo "== D: seed_app.py 4 600, three more pairs"
mbit() { grep -o '[0-9.]* Mbit/s' "$1" | awk '{s+=$1} END {printf "%.1f", s}'; }
for r in 3 4 5; do
	timeout 120 $PY tests/fixtures/seed_app.py 4 600 >$O/seed4-r$r-alone.out 2>&1
	echo "w4 r$r alone rc=$? $(mbit $O/seed4-r$r-alone.out) Mbit/s"
	x=$(obs seed4-r$r sampled $PY tests/fixtures/seed_app.py 4 600)
	echo "w4 r$r observed $x $(mbit $O/seed4-r$r.err) Mbit/s"
done
date -u
cd $OUT && tar czf after2.tgz after2 && rm -rf after2
