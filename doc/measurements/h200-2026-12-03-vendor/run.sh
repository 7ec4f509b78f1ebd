#!/usr/bin/env bash
# One call on the H200: what the driver says beside the union (src/vendor/, NVML loaded at run
# time), and a program that profiles its own queue, observed. Binary: build/gpu30.
# 1. seed 1, 4, 16 workers, 6 s each, JSONL: device_busy (the union) beside driver_util,
#    sm_active, sm_occupancy, mem_used_bytes, with nvidia-smi dmon sampling beside each run.
# 2. pipelined defaults, kernel-only 8 queues: the same fields.
# 3. tests/fixtures/cl_selfprof (own events, profiling queue, 1024 batches of 20 launches): alone,
#    then observed under full and sampled: its own kernel time against the log's.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu30
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/vendor; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,uuid --format=csv,noheader; nproc; } 2>&1
$G/gputop-decode --list-devices 2>&1
D=$(${G}/gputop-decode --list-devices 2>/dev/null | awk '$2=="GPU"{print $1; exit}')
echo "device $D"
sumv() { python3 - "$1" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
agg = [r for r in rows if r.get("kind") == "aggregate" and r.get("device_busy") is not None][1:]
def m(k):
    v = [r[k] for r in agg if r.get(k) is not None]
    return "%.3f" % (sum(v) / len(v)) if v else "n/a"
print("windows %d device_busy %s driver_util %s sm_active %s sm_occupancy %s mem_used_bytes %s mbit_s %s" % (
    len(agg), m("device_busy"), m("driver_util"), m("sm_active"), m("sm_occupancy"), m("mem_used_bytes"), m("mbit_s")))
PY
}
run() { # name args...
	local n=$1; shift
	nvidia-smi dmon -s u -d 1 -c 8 >$O/$n.dmon 2>&1 &
	local d=$!
	timeout 60 $G/gputop-decode --headless -d $D -D 6 -i 1 -f jsonl -o $O/$n.jsonl "$@" 2>$O/$n.err
	echo "$n rc=$? $*: $(sumv $O/$n.jsonl)"
	wait $d
	echo "  nvidia-smi dmon sm%: $(awk '$1 ~ /^[0-9]+$/ {printf "%s ", $2}' $O/$n.dmon)"
	head -c 300 $O/$n.err
}
run seed1 -n 1
run seed4 -n 4
run seed16 -n 16
run pipelined -m pipelined
run konly8 -m kernel-only --queues 8
GPUTOP_DECODE_NVML= run seed4-nonvml -n 4
S="$G/fixtures/cl_selfprof 1024 20 own 20 in"
echo "-- cl_selfprof alone"; timeout 60 $S 2>&1 | tail -3

for p in full sampled; do
	timeout 90 $G/gputop-decode --headless -d $D -i 0.5 --profile $p -f jsonl -o $O/selfprof-$p.jsonl -- $S >$O/selfprof-$p.out 2>$O/selfprof-$p.err
	echo "selfprof $p rc=$?: $(tail -2 $O/selfprof-$p.out | tr '\n' ' ')"
	python3 - $O/selfprof-$p.jsonl <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
k = sum(r.get("kernel_busy", 0) * next((a.get("window_s", 0) for a in rows if a.get("kind") == "aggregate" and a["t_s"] == r["t_s"]), 0)
        for r in rows if r.get("kind") == "worker")
print("  log: kernel seconds %.4f, batches %s" % (k, max((r.get("batches", 0) for r in rows if r.get("kind") == "worker"), default=0)))
PY
done
date -u
cd $OUT && tar czf vendor.tgz vendor && rm -rf vendor
