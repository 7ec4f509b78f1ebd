#!/usr/bin/env bash
# The restructured binary (narrow boundaries, no behaviour change) on one H200: the same
# `make bench GPU=1:0` table as doc/PERFORMANCE.md's "One process at the ceiling", to show the
# figures did not move, plus the listing, a dashboard-free headless run through every output
# (log, trace, Prometheus file) and a short sweep.
set -u
G=build/gpu4
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/r
mkdir -p $O
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; uname -r; nproc; } >$O/host.txt 2>&1
$G/gputop-decode --list-devices >$O/list.txt 2>&1
cat $O/host.txt $O/list.txt
DEV=$(awk '/GPU/ {print $1; exit}' $O/list.txt)
echo "device $DEV"
# Every output at once: the log, a trace and a Prometheus file, 4 seed workers.
$G/gputop-decode --headless -d $DEV -n 4 -D 4 -i 0.5 -f jsonl -o $O/outputs.jsonl --trace $O/outputs.trace \
	--prom-file $O/outputs.prom 2>$O/outputs.err; echo "outputs rc=$?"
python3 tests/integration/check_log.py $O/outputs.jsonl jsonl 4; echo "check_log rc=$?"
python3 -c "import json,sys; t=json.load(open('$O/outputs.trace')); print('trace events', len(t))"
grep -c '^gputop_decode' $O/outputs.prom
# A sweep with the calibration, its table and its log.
$G/gputop-decode --headless -d $DEV --sweep 1,4,1x4 -m pipelined -D 3 -i 0.5 --calibrate -o $O/sweep.csv >$O/sweep.txt 2>$O/sweep.err
echo "sweep rc=$?"; cat $O/sweep.txt
# The bench table, as in doc/PERFORMANCE.md.
bash bench/gpu_bench.sh $G/gputop-decode $G/ref_loop $G/bench_core $DEV $O/bench >/dev/null 2>&1
python3 bench/bench_table.py $O/bench | tee $O/table.txt
cd $OUT && tar czf r.tgz r && rm -rf r
