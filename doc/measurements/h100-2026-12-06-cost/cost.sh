#!/usr/bin/env bash
# Where the cost of looking goes (binary build/gpu35 at 0a6407a; the call got an H100, not the
# H200 asked for). cl_cost launch 200 1000 (back-to-back empty
# launches, one queue) in ten rounds, each in a shuffled order of: alone; the library preloaded
# with no run to join (it passes every call on: the price of the interposition alone); observed
# under --profile off; observed under sampled. The program runs on cores 4-15, the tool on 0-3
# (taskset), so the supervisor does not share the program's cores; the tool's own CPU time is
# read from /proc before it exits. Then seed_app.py with 16 processes, four rounds of alone,
# observed under off and under sampled, same cores, and the tool's own CPU time.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu35
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
mkdir -p /tmp/py && for d in $G/debs/*.deb; do dpkg -x $d /tmp/py; done
PYLIB=/tmp/py/usr/lib/x86_64-linux-gnu
PY="env PYTHONHOME=/tmp/py/usr PYTHONPATH=/tmp/py/usr/lib/python3/dist-packages LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:$PYLIB:$PYLIB/blas:$PYLIB/lapack /tmp/py/usr/bin/python3.11"
O=$OUT/cost; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
D=$($G/gputop-decode --list-devices 2>/dev/null | awk '$2=="GPU"{print $1; exit}')
APP="taskset -c 4-15"
TOOL="taskset -c 0-3"
CLK=$(getconf CLK_TCK)
# obs NAME PROFILE CMD...: the tool observing CMD; prints rc and the tool's own CPU seconds.
obs() {
	local n=$1 p=$2; shift 2
	$TOOL $G/gputop-decode --headless -d $D -i 0.5 --profile $p -f jsonl -o $O/$n.jsonl -- $APP "$@" \
		>$O/$n.out 2>$O/$n.err &
	local pid=$! last=""
	while kill -0 $pid 2>/dev/null; do
		last=$(cat /proc/$pid/stat 2>/dev/null || echo "$last")
		[ -n "$last" ] && echo "$last" >$O/$n.stat
		sleep 0.2
	done
	wait $pid
	local rc=$?
	echo "rc=$rc tool_cpu_s=$(awk -v k=$CLK '{printf "%.2f", ($14+$15)/k}' $O/$n.stat 2>/dev/null)"
}
nspl() { grep -o '"ns_per_launch":[0-9.]*' "$1" | cut -d: -f2; }
C="$G/fixtures/cl_cost launch 200 1000"
for r in 1 2 3 4 5 6 7 8 9 10; do
	for v in $(printf '%s\n' alone preload off sampled | shuf); do
		case $v in
		alone) timeout 60 $APP $C >$O/c$r-$v.err 2>&1; x="rc=$?" ;;
		preload) LD_PRELOAD=$PWD/$G/libgputop-observe.so timeout 60 $APP $C >$O/c$r-$v.err 2>&1; x="rc=$?" ;;
		*) x=$(obs c$r-$v $v $C) ;;
		esac
		echo "cost r$r $v $x ns_per_launch=$(nspl $O/c$r-$v.err)"
	done
done
mbit() { grep -o '[0-9.]* Mbit/s' "$1" | awk '{s+=$1} END {printf "%.1f", s}'; }
for r in 1 2 3 4; do
	for v in $(printf '%s\n' alone off sampled | shuf); do
		if [ $v = alone ]; then
			timeout 120 $APP $PY tests/fixtures/seed_app.py 16 600 >$O/s$r-$v.err 2>&1
			x="rc=$?"
		else
			x=$(obs s$r-$v $v $PY tests/fixtures/seed_app.py 16 600)
		fi
		echo "seed16 r$r $v $x $(mbit $O/s$r-$v.err) Mbit/s"
	done
done
date -u
cd $OUT && tar czf cost.tgz cost && rm -rf cost
