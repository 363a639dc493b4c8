#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What our ksmbd's RDMA connections cost (scripts/memory.sh ksmbd,
# admin-guide.rst "Memory"), inside the VM: for rxe and for siw, N raw
# clients (smbd_test's rawc: bare RDMA CM connections that negotiate SMB
# Direct and nothing else, so only the server's side is ours) connect to
# our ksmbd; /proc/meminfo before, with the N idle, after each sent the
# first fragment of a 1 MiB message, and after they are closed. With the
# idle N, the largest vmalloc callers (/proc/vmallocinfo) and slab caches
# (/proc/slabinfo, where the kernel has it) that grew say where the memory
# goes. Prints one line per snapshot; not a test.
. /smbd/tests/lib.sh

C=/sys/kernel/debug/smbd_test/control
K=/tmp/ksmbd-memory
N=${N:-64}

snap() {
	awk '/^(MemAvailable|MemFree|Slab|SUnreclaim|VmallocUsed|Percpu|KernelStack|PageTables):/ {
		printf "%s %s ", $1, $2 } END { print "(KiB)" }' /proc/meminfo
}

vmalloc_by_caller() {
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /\+0x/) { c = $i; sub(/\+.*/, "", c); b[c] += $2; break } }
	     END { for (c in b) print b[c], c }' /proc/vmallocinfo | sort -k2
}

slab_by_cache() {
	[ -r /proc/slabinfo ] || return 0
	awk 'NR > 2 { print $2 * $4, $1 }' /proc/slabinfo | sort -k2
}

# top_growth BEFORE AFTER: the ten largest growths, "bytes name"
top_growth() {
	awk 'FNR == NR { b[$2] = $1; next } { d = $1 - b[$2]; if (d > 0) print d, $2 }' \
		"$1" "$2" | sort -rn | head -n 10
}

# rawc_each VERB ARGS: smbd_test's "rawc VERB mI ARGS" for clients 1 to N
rawc_each() {
	i=1
	while [ $i -le "$N" ]; do
		echo "rawc $1 m$i $2" >$C || { cat /sys/kernel/debug/smbd_test/result; exit 1; }
		i=$((i + 1))
	done
}

modprobe smbd_test || exit 1
out=$(ksmbd_start "$K" mem mem-pass) || { echo "$out"; exit 1; }
for a in "$RXE_ADDR 445" "$SIW_ADDR 5445"; do
	set -- $a
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	echo "$1 before: $(snap)"
	vmalloc_by_caller >/tmp/vm.before
	slab_by_cache >/tmp/slab.before
	rawc_each open "$1 $2"
	sleep 2
	echo "$1 with $N idle: $(snap)"
	vmalloc_by_caller >/tmp/vm.after
	slab_by_cache >/tmp/slab.after
	echo "$1 vmalloc growth by caller (bytes):"
	top_growth /tmp/vm.before /tmp/vm.after | sed 's/^/    /'
	echo "$1 slab growth by cache (bytes):"
	top_growth /tmp/slab.before /tmp/slab.after | sed 's/^/    /'
	rawc_each half size=1048576
	sleep 1
	echo "$1 with $N half-sent 1 MiB messages: $(snap)"
	echo "rawc close all" >$C
	sleep 5
	echo "$1 closed: $(snap)"
done
ksmbd_stop
rmmod smbd_test
