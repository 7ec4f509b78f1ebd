#!/usr/bin/env bash
# threads.sh PID SECONDS: each thread of PID over SECONDS: CPU time (user, system, in ms) and
# context switches (voluntary, involuntary), busiest first.
pid=$1 sec=$2
snap() { for t in /proc/$pid/task/*; do
	tid=${t##*/}; read -r -a st <$t/stat 2>/dev/null || continue
	v=$(awk '/^voluntary/ {print $2}' $t/status); nv=$(awk '/^nonvoluntary/ {print $2}' $t/status)
	echo "$tid ${st[13]} ${st[14]} $v $nv"; done; }
snap >/tmp/threads.a; sleep $sec; snap >/tmp/threads.b
tck=$(getconf CLK_TCK)
join /tmp/threads.a /tmp/threads.b | awk -v t=$tck -v s=$sec -v p=$pid \
	'{u=($6-$2)*1000/t/s; y=($7-$3)*1000/t/s; printf "%s%-8s user %4.0f ms/s  sys %4.0f ms/s  vcsw %7.0f/s  ivcsw %6.0f/s\n", ($1==p?"*":" "), $1, u, y, ($8-$4)/s, ($9-$5)/s}' |
	sort -t'u' -k2 -rn | sort -k3 -rn | head -8
