#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `rdma link delete` under live SMB Direct connections, on rxe and on siw:
# every connection on the device is lost with -ENODEV (ENODEV = 19), the
# listener on it stops, nothing hangs, the device comes back, and a new
# listener and client on it work again. Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

D=$SMBD_DBG

fail() { smbd_test_fail "$*"; }

both_lost() {
	[ "$(grep -c '^client .* error=-19$' "$ST_S")" -eq 2 ]
}

check_device() { # check_device DEV ADDR
	dev=$1 addr=$2
	st_cmd listen echo "$addr"
	st_cmd open a "$addr"
	st_cmd open b "$addr"
	st_cmd send a count=10 size=5000 verify=1
	grep -q "^  server conn" "$ST_S" || fail "no server connections"

	rdma link delete "$dev" || fail "rdma link delete $dev"
	wait_for 20 both_lost || fail "$dev: clients did not see the removal"
	grep -q "error=-19" "$D/listeners" || fail "$dev: listener still up"
	wait_for 20 sh -c "! grep -q '^  server conn' $ST_S" ||
		fail "$dev: server connections not reaped"
	if echo "send a count=1 size=10" >"$ST_C" 2>/dev/null; then
		fail "$dev: sent on a removed device"
	fi
	st_cmd close all
	st_cmd unlisten all
	wait_for 10 smbd_no_conns || fail "$dev: connections left"

	rdma_readd "$dev" || fail "$dev: could not be added again"
	st_cmd listen echo "$addr"
	st_cmd run "$addr" count=10 size=3000 verify=1
	grep -q "verified 10 echoes, 0 mismatched" "$ST_R" || fail "$dev: no echo after re-adding"
	st_cmd unlisten all
	echo "$dev: removal under 4 connections handled, device usable again"
}

modprobe smbd_test || fail "modprobe smbd_test"
check_device "$SIW_DEV" "$SIW_ADDR"
check_device "$RXE_DEV" "$RXE_ADDR"
wait_for 10 smbd_no_conns || fail "connections left behind"
rmmod smbd_test || fail "rmmod smbd_test"
