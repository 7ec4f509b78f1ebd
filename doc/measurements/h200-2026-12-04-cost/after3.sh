#!/usr/bin/env bash
# The third call on the H200 (binary build/gpu34: callbacks drained only when one came, one
# launch in 16 timed): the cost of looking once more, cl_cost launch 200 1000 alone and observed
# under off, sampled and full, five interleaved rounds; the library's own cost per call against a
# fake runtime (bench/observe_call); seed_app.py at 1 and 16 processes, three pairs each.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu34
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
mkdir -p /tmp/py && for d in $G/debs/*.deb; do dpkg -x $d /tmp/py; done
PYLIB=/tmp/py/usr/lib/x86_64-linux-gnu
PY="env PYTHONHOME=/tmp/py/usr PYTHONPATH=/tmp/py/usr/lib/python3/dist-packages LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:$PYLIB:$PYLIB/blas:$PYLIB/lapack /tmp/py/usr/bin/python3.11"
O=$OUT/after3; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } 2>&1
D=$($G/gputop-decode --list-devices 2>/dev/null | awk '$2=="GPU"{print $1; exit}')
obs() { # NAME PROFILE CMD...
	local n=$1 p=$2; shift 2
	timeout 150 $G/gputop-decode --headless -d $D -i 0.5 --profile $p -f jsonl -o $O/$n.jsonl -- "$@" >$O/$n.out 2>$O/$n.err
	echo "rc=$?"
}
for p in off sampled full; do LD_LIBRARY_PATH=$PWD/$G:$PWD/$G/bench $G/bench/observe_call $p; done
C="$G/fixtures/cl_cost launch 200 1000"
for r in 1 2 3 4 5; do
	echo "r$r alone $(timeout 60 $C 2>&1 | grep -o '"ns_per_launch":[0-9.]*')"
	for p in off sampled full; do
		x=$(obs cost-r$r-$p $p $C)
		echo "r$r $p $x $(grep -o '"ns_per_launch":[0-9.]*' $O/cost-r$r-$p.err)"
	done
done
mbit() { grep -o '[0-9.]* Mbit/s' "$1" | awk '{s+=$1} END {printf "%.1f", s}'; }
for w in 1 16; do
	for r in 1 2 3; do
		timeout 120 $PY tests/fixtures/seed_app.py $w 600 >$O/seed$w-r$r-alone.out 2>&1
		echo "w$w r$r alone rc=$? $(mbit $O/seed$w-r$r-alone.out) Mbit/s"
		x=$(obs seed$w-r$r sampled $PY tests/fixtures/seed_app.py $w 600)
		echo "w$w r$r observed $x $(mbit $O/seed$w-r$r.err) Mbit/s"
	done
done
date -u
cd $OUT && tar czf after3.tgz after3 && rm -rf after3
