#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The SMB Direct part of `make demo`, run inside the VM by guest-main.sh: with the
# smbd_test service, start an echo listener on rxe and on siw, connect to
# each, move verified messages of several sizes (one byte to the peer's
# MaxFragmentedSize), and show the negotiated parameters and the
# connection's debugfs counters; then, with smbd_rdma_bench, have a server
# connection RDMA-write into and RDMA-read from 1 MiB that a client
# connection registered with FRWR (Buffer Descriptor V1, as SMB2 READ and
# WRITE use it), and show the totals of every counter that moved.
. /smbd/guest-lib.sh

C=/sys/kernel/debug/smbd_test/control
R=/sys/kernel/debug/smbd_test/result
D=/sys/kernel/debug/smbdirect
B=/sys/kernel/debug/smbd_rdma_bench

run() { # run COMMAND...: send one command to smbd_test, show its result
	echo "\$ echo '$*' >$C"
	echo "$*" >"$C"
	_rc=$?
	sed 's/^/    /' "$R"
	return $_rc
}

demo_device() { # demo_device DEV ADDR
	say "---- SMB Direct over $1 ($2) ----"
	run listen echo "$2" || return 1
	run open "demo-$1" "$2" || return 1
	_id=$(sed -n 's/^connected: conn=\([0-9]*\).*/\1/p' "$R")
	_max=$(sed -n 's/.*max_fragmented_send_size=\([0-9]*\).*/\1/p' "$R")
	for _size in 1 1340 1341 65536 "$_max"; do
		run send "demo-$1" count=10 size="$_size" verify=1 || return 1
	done
	say "$D/conn/$_id/params:"
	sed 's/^/    /' "$D/conn/$_id/params"
	say "$D/conn/$_id/credits:"
	sed 's/^/    /' "$D/conn/$_id/credits"
	say "$D/conn/$_id/counters:"
	sed 's/^/    /' "$D/conn/$_id/counters"
	say "$D/conn/$_id/errors (non-zero only):"
	awk '$2 != 0 { n++; print "    " $0 } END { if (!n) print "    none" }' \
		"$D/conn/$_id/errors"
	say "$D/connections:"
	sed 's/^/    /' "$D/connections"
	run close "demo-$1"
	run unlisten all
	for _op in write read; do
		_cmd="run $2 7445 op=$_op size=1048576 count=16 reg=each"
		echo "\$ echo '$_cmd' >$B/control"
		echo "$_cmd" >"$B/control" || { sed 's/^/    /' "$B/result"; return 1; }
		sed 's/^/    /' "$B/result"
	done
}

modprobe smbd_test || exit 1
modprobe smbd_rdma_bench || exit 1
demo_device "$RXE_DEV" "$RXE_ADDR" || exit 1
demo_device "$SIW_DEV" "$SIW_ADDR" || exit 1
say "$D/stats (all connections of this boot):"
grep -v ' 0$' "$D/stats" | sed 's/^/    /'
rmmod smbd_rdma_bench smbd_test
