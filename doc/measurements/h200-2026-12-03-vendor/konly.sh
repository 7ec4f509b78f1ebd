#!/usr/bin/env bash
# The second call, minutes after run.sh on the same machine: run.sh's kernel-only line asked for
# `-q 8`, an option the binary does not have (refused, status 2); this is that line, fixed, and
# the 16 seed workers again beside it.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu30
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/konly; mkdir -p $O
date -u
for n in konly8 seed16; do
	a="-m kernel-only --queues 8"; [ $n = seed16 ] && a="-n 16"
	nvidia-smi dmon -s u -d 1 -c 8 >$O/$n.dmon 2>&1 &
	timeout 60 $G/gputop-decode --headless -D 6 -i 1 -f jsonl -o $O/$n.jsonl $a 2>$O/$n.err
	echo "$n rc=$? $a"; wait
	python3 -c "
import json,sys
for l in open('$O/$n.jsonl'):
    r=json.loads(l)
    if r.get('kind')=='aggregate': print(' t=%s busy=%s driver=%s sm_active=%s sm_occ=%s mbit_s=%s' % (r['t_s'], r.get('device_busy'), r.get('driver_util'), r.get('sm_active'), r.get('sm_occupancy'), r.get('mbit_s')))"
	echo "  dmon sm%: $(awk '$1 ~ /^[0-9]+$/ {printf "%s ", $2}' $O/$n.dmon)"
done
date -u
cd $OUT && tar czf konly.tgz konly && rm -rf konly
