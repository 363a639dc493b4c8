#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What connections cost (scripts/memory.sh, admin-guide.rst "Memory"),
# inside the VM: for rxe and for siw, 64 connections of the smbd_test
# service (each is two endpoints, ours on both sides, default parameters)
# against an echo listener; /proc/meminfo before, with the 64 open, after a
# little traffic, and after they are closed. Prints one line per snapshot.
C=/sys/kernel/debug/smbd_test/control
N=${N:-64}
modprobe smbd_test || exit 1
snap() {
	awk '/^(MemFree|Slab|SUnreclaim|VmallocUsed|Percpu):/ { printf "%s %s ", $1, $2 }
	     END { print "(KiB)" }' /proc/meminfo
}
for addr in 192.0.2.1 198.51.100.1; do
	echo "listen echo $addr" >$C || exit 1
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	echo "$addr before: $(snap)"
	i=1
	while [ $i -le $N ]; do
		echo "open c$i $addr" >$C || { cat /sys/kernel/debug/smbd_test/result; exit 1; }
		i=$((i + 1))
	done
	sleep 2
	echo "$addr with $N open: $(snap)"
	echo "send c1 count=10 size=100000 verify=1" >$C || exit 1
	echo "$addr after traffic: $(snap)"
	echo "close all" >$C
	echo "unlisten all" >$C
	sleep 3
	echo "$addr closed: $(snap)"
done
