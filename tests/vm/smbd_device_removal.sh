#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `rdma link delete` under live SMB Direct connections, on rxe and on siw:
# every connection on the device is lost with -ENODEV (ENODEV = 19), the
# listener on it stops, nothing hangs, the device comes back, and a new
# listener and client on it work again. Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

C=/sys/kernel/debug/smbd_test/control
R=/sys/kernel/debug/smbd_test/result
S=/sys/kernel/debug/smbd_test/status
D=/sys/kernel/debug/smbdirect

fail() {
	echo "FAIL: $*"
	[ -r "$S" ] && { echo "--- status"; cat "$S"; }
	[ -r "$D/connections" ] && { echo "--- connections"; cat "$D/connections"; }
	[ -r "$D/listeners" ] && { echo "--- listeners"; cat "$D/listeners"; }
	echo "close all" >"$C" 2>/dev/null
	echo "unlisten all" >"$C" 2>/dev/null
	rmmod smbd_test 2>/dev/null
	exit 1
}

cmd() {
	echo "$*" >"$C" || { cat "$R"; fail "'$*' refused"; }
}

both_lost() {
	[ "$(grep -c '^client .* error=-19$' "$S")" -eq 2 ]
}

check_device() { # check_device DEV ADDR
	dev=$1 addr=$2
	cmd listen echo "$addr"
	cmd open a "$addr"
	cmd open b "$addr"
	cmd send a count=10 size=5000 verify=1
	grep -q "^  server conn" "$S" || fail "no server connections"

	rdma link delete "$dev" || fail "rdma link delete $dev"
	wait_for 20 both_lost || fail "$dev: clients did not see the removal"
	grep -q "error=-19" "$D/listeners" || fail "$dev: listener still up"
	wait_for 20 sh -c "! grep -q '^  server conn' $S" ||
		fail "$dev: server connections not reaped"
	if echo "send a count=1 size=10" >"$C" 2>/dev/null; then
		fail "$dev: sent on a removed device"
	fi
	cmd close all
	cmd unlisten all
	wait_for 10 sh -c "[ ! -s $D/connections ]" || fail "$dev: connections left"

	rdma_readd "$dev" || fail "$dev: could not be added again"
	cmd listen echo "$addr"
	cmd run "$addr" count=10 size=3000 verify=1
	grep -q "verified 10 echoes, 0 mismatched" "$R" || fail "$dev: no echo after re-adding"
	cmd unlisten all
	echo "$dev: removal under 4 connections handled, device usable again"
}

modprobe smbd_test || fail "modprobe smbd_test"
check_device "$SIW_DEV" "$SIW_ADDR"
check_device "$RXE_DEV" "$RXE_ADDR"
wait_for 10 sh -c "[ ! -s $D/connections ]" || fail "connections left behind"
rmmod smbd_test || fail "rmmod smbd_test"
