#!/usr/bin/env bash
# One call on the H200 after the recorder's rework (binary build/gpu32):
# A. the cost of looking: tests/fixtures/cl_cost, 200 batches of 1000 empty launches, alone
#    and observed under --profile off, sampled and full, five interleaved rounds;
# B. the question's structure in PyOpenCL (tests/fixtures/seed_app.py) at 1, 4 and 16
#    processes, alone and observed, two interleaved pairs each: the program's own Mbit/s;
# C. a C program that profiles itself (cl_selfprof), observed with a trace: device_busy
#    window by window against the union of the trace's kernel slices;
# D. what the driver says beside the union: seed 1/4/16, pipelined, kernel-only 8 queues and
#    an observed seed_app, with a plain OpenCL loop (cl_cost) run beside them by the script,
#    which the tool did not start: its outside row.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu32
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
mkdir -p /tmp/py && for d in $G/debs/*.deb; do dpkg -x $d /tmp/py; done
PYLIB=/tmp/py/usr/lib/x86_64-linux-gnu
PY="env PYTHONHOME=/tmp/py/usr PYTHONPATH=/tmp/py/usr/lib/python3/dist-packages LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:$PYLIB:$PYLIB/blas:$PYLIB/lapack /tmp/py/usr/bin/python3.11"
O=$OUT/after; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader; nproc; } 2>&1
D=$($G/gputop-decode --list-devices 2>/dev/null | awk '$2=="GPU"{print $1; exit}')
echo "device $D"
obs() { # NAME PROFILE CMD...: observed, headless, JSONL, the program's output in NAME.err
	local n=$1 p=$2; shift 2
	timeout 120 $G/gputop-decode --headless -d $D -i 0.5 --profile $p -f jsonl -o $O/$n.jsonl -- "$@" >$O/$n.out 2>$O/$n.err
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
echo "== B: seed_app.py W 600 (the program's own Mbit/s per worker, summed)"
mbit() { grep -o '[0-9.]* Mbit/s' "$1" | awk '{s+=$1} END {printf "%.1f", s}'; }
for w in 1 4 16; do
	for r in 1 2; do
		timeout 120 $PY tests/fixtures/seed_app.py $w 600 >$O/seed$w-r$r-alone.out 2>&1
		echo "w$w r$r alone rc=$? $(mbit $O/seed$w-r$r-alone.out) Mbit/s"
		x=$(obs seed$w-r$r sampled $PY tests/fixtures/seed_app.py $w 600)
		echo "w$w r$r observed $x $(mbit $O/seed$w-r$r.err) Mbit/s; log: $(python3 - $O/seed$w-r$r.jsonl <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
agg = [r for r in rows if r.get("kind") == "aggregate" and r.get("device_busy") is not None]
mid = agg[1:-1] or agg
def m(k):
    v = [r[k] for r in mid if r.get(k) is not None]
    return "%.3f" % (sum(v) / len(v)) if v else "n/a"
print("windows %d busy %s driver %s rate %s Mitem/s" % (len(mid), m("device_busy"), m("driver_util"), m("rate")))
PY
)"
	done
done
echo "== C: cl_selfprof observed with a trace"
S="$G/fixtures/cl_selfprof 1024 20 own 20 in"
timeout 120 $G/gputop-decode --headless -d $D -i 0.5 --profile sampled -f jsonl -o $O/selfprof.jsonl --trace $O/selfprof.trace -- $S >$O/selfprof.out 2>$O/selfprof.err
echo "rc=$?"; tail -3 $O/selfprof.err
python3 - $O/selfprof.jsonl $O/selfprof.trace <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
ev = json.load(open(sys.argv[2]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
ks = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("ph") == "X" and e.get("name", "").startswith("kernel") and "estimated" not in e.get("name", ""))
t0 = [e for e in ev if e.get("ph") == "X"]
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
    print("window %.3f device_busy %.4f trace union %.4f" % (r["t_s"], r["device_busy"], u))
print("worst difference %.4f over %d windows" % (worst, len(agg)))
PY
echo "== D: what the driver says; an outside process"
$G/fixtures/cl_cost launch 4000 1000 >$O/outside.out 2>&1 &
OUTSIDE=$!
sleep 2
run() { # NAME ARGS...
	local n=$1; shift
	nvidia-smi dmon -s u -d 1 -c 7 >$O/$n.dmon 2>&1 &
	local dm=$!
	timeout 60 $G/gputop-decode --headless -d $D -D 6 -i 1 -f jsonl -o $O/$n.jsonl "$@" >$O/$n.out 2>$O/$n.err
	echo "$n rc=$? $*"
	wait $dm
	python3 - $O/$n.jsonl <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
agg = [r for r in rows if r.get("kind") == "aggregate" and r.get("device_busy") is not None][1:]
def m(k):
    v = [r[k] for r in agg if r.get(k) is not None]
    return "%.3f" % (sum(v) / len(v)) if v else "n/a"
print("  windows %d device_busy %s driver_util %s sm_active %s sm_occupancy %s mem_used_bytes %s" % (
    len(agg), m("device_busy"), m("driver_util"), m("sm_active"), m("sm_occupancy"), m("mem_used_bytes")))
out = {}
for r in rows:
    if r.get("kind") == "outside":
        out[r.get("pid")] = r
for p, r in out.items():
    print("  outside row: pid %s command %s mem_used_bytes %s driver_sm %s" % (p, r.get("command"), r.get("mem_used_bytes"), r.get("driver_sm")))
ws = {}
for r in rows:
    if r.get("kind") == "worker" and r.get("mem_used_bytes") is not None:
        ws[r.get("pid")] = r.get("mem_used_bytes")
print("  rows with memory: %d" % len(ws))
PY
	echo "  nvidia-smi dmon sm%: $(awk '$1 ~ /^[0-9]+$/ {printf "%s ", $2}' $O/$n.dmon)"
}
echo "outside pid $OUTSIDE"
run seed1 -n 1
run seed4 -n 4
run seed16 -n 16
run pipelined -m pipelined
run konly8 -m kernel-only --queues 8
run observed -- $PY tests/fixtures/seed_app.py 4 3000
kill $OUTSIDE 2>/dev/null; wait $OUTSIDE 2>/dev/null
date -u
cd $OUT && tar czf after.tgz after && rm -rf after
