#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In-VM part of scripts/bench-rdma.sh (a benchmark, not a test): on rxe and
# on siw, RDMA Write and Read throughput for 64 KiB, 1 MiB and 8 MiB
# transfers, raw verbs (perftest ib_write_bw / ib_read_bw over rdma_cm)
# against smbdirect (smbd_rdma_bench.ko: smbd_rdma_write/read on an
# accepted connection into a buffer the client registered), registration
# included (reg=each) and excluded (reg=once).
# Prints lines "result DEV OP SIZE KIND MB/s" for the host to tabulate.

PT_PORT=18515
CTL=/sys/kernel/debug/smbd_rdma_bench

say() { echo "# $*"; }

# iterations for SIZE, roughly the same bytes per measurement
iters() {
	case $1 in
	65536) echo 400 ;;
	1048576) echo 40 ;;
	*) echo 8 ;;
	esac
}

raw() { # raw PROG DEV ADDR SIZE -> MB/s
	_n=$(iters "$4")
	"$1" -d "$2" -R -F -p $PT_PORT -s "$4" -n "$_n" >/tmp/pt-srv.log 2>&1 &
	_srv=$!
	sleep 1
	_out=$(timeout 300 "$1" -d "$2" -R -F -p $PT_PORT -s "$4" -n "$_n" "$3" 2>&1)
	wait $_srv 2>/dev/null
	echo "$_out" | awk '$1 == "'"$4"'" { print $4; exit }'
}

smbd() { # smbd OP ADDR SIZE REG -> MB/s
	_n=$(iters "$3")
	if ! echo "run $2 7445 op=$1 size=$3 count=$_n reg=$4" >$CTL/control; then
		cat $CTL/result >&2
		echo "-"
		return
	fi
	sed -n 's/.*MB\/s=\([0-9]*\).*/\1/p' $CTL/result
}

modprobe smbd_rdma_bench || exit 1
for dev in rxe:rxe0:192.0.2.1 siw:siw0:198.51.100.1; do
	kind=${dev%%:*}; rest=${dev#*:}; ibdev=${rest%%:*}; addr=${rest#*:}
	for size in 65536 1048576 8388608; do
		for op in write read; do
			echo "result $kind $op $size raw $(raw ib_${op}_bw "$ibdev" "$addr" "$size")"
			echo "result $kind $op $size smbd_once $(smbd "$op" "$addr" "$size" once)"
			echo "result $kind $op $size smbd_each $(smbd "$op" "$addr" "$size" each)"
		done
	done
done
say "smbdirect counters"
cat /sys/kernel/debug/smbdirect/stats 2>/dev/null | grep -E "^(mr_|rdma)" || true
rmmod smbd_rdma_bench
