#!/usr/bin/env bash
# Two H200s: one device against two, with the plain reference loop beside the tool.
set -u
G=build/gpu3
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
if ldd $G/gputop-decode | grep -q "libmicrohttpd.*not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/devices
mkdir -p $O
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; uname -r; nproc; } >$O/host.txt 2>&1
cat $O/host.txt
$G/gputop-decode --list-devices >$O/list.txt 2>&1
cat $O/list.txt
# The plain loop: one process per device, 1 and 8 queues, f64, 10 launches per batch, 4 s.
for q in 1 8; do
  $G/ref_loop kernels/decode.cl 1:0 f64 100000 10 4 plain $q >$O/ref-one-q$q.txt 2>&1
  $G/ref_loop kernels/decode.cl 1:0 f64 100000 10 4 plain $q >$O/ref-two-a-q$q.txt 2>&1 &
  $G/ref_loop kernels/decode.cl 1:1 f64 100000 10 4 plain $q >$O/ref-two-b-q$q.txt 2>&1
  wait
done
head -n 50 $O/ref-*.txt
# The tool: the same total workers on one device and on two, pipelined and kernel-only.
WORKERS="1 2 4 8" bash $G/gpu_devices.sh $G/gputop-decode 1:0 1:0,1:1 4 $O/sweeps >$O/table.txt 2>$O/table.err
cat $O/table.txt; tail -5 $O/table.err
# A repeated sweep over both devices: the spread, and each device's share of each step.
$G/gputop-decode --headless --device 1:0,1:1 -m kernel-only --sweep 2,4 --repeat 3 -D 2 -i 0.5 -o $O/repeat.csv >$O/repeat.txt 2>$O/repeat.err; echo "repeat rc=$?"
cat $O/repeat.txt
python3 tests/integration/check_log.py $O/repeat.csv csv --sweep 2 3 --option 'device="1:0,1:1"'; echo "check_log rc=$?"
# --device all: which devices it takes, and a short headless run naming each worker's device.
$G/gputop-decode --headless --device all -n 4 -D 3 -i 0.5 -f jsonl -o $O/all.jsonl >$O/all.txt 2>&1; echo "all rc=$?"
head -1 $O/all.jsonl | cut -c1-600
python3 tests/integration/check_log.py $O/all.jsonl jsonl 4; echo "check_log rc=$?"
# Prometheus from two devices: per-device families, workers labelled with their own device.
$G/gputop-decode --headless --device 1:0,1:1 -n 2 -D 3 -i 0.5 --prom-file $O/metrics.prom -o /dev/null >$O/prom.txt 2>&1; echo "prom rc=$?"
grep -E "^gputop_decode_(device_busy_ratio|workers|device_info|device_throughput)|^gputop_decode_throughput" $O/metrics.prom
cd $OUT && tar czf devices.tgz devices && rm -rf devices
