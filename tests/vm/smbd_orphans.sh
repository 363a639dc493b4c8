#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# An upper layer that goes without destroying what it made: smbd_test
# unloaded with orphan_on_exit=1 frees its own records and leaves its
# listeners (one per device and a wildcard group) and connections (its
# clients and the connections its listeners accepted) to smbdirect.
# smbdirect's module notifier must destroy them once the module has gone,
# say so once, naming the module, and leave nothing behind: no listener,
# no connection, the ports free for the next listener. Without it the
# listeners would call a freed accept callback at the next connect
# request and smbdirect could never be unloaded.
# Documentation/api.rst ("Contexts and ownership"). Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

C=/sys/kernel/debug/smbd_test/control
R=/sys/kernel/debug/smbd_test/result
P=/sys/module/smbd_test/parameters/orphan_on_exit
D=/sys/kernel/debug/smbdirect

fail() {
	echo "FAIL: $*"
	echo "--- smbdirect connections, listeners"
	cat "$D/connections" "$D/listeners" 2>/dev/null
	echo "--- kernel log (smbdirect)"
	dmesg | grep -E 'smbdirect' | tail -n 20
	[ -w "$P" ] && echo 0 >"$P"
	echo "unlisten all" >"$C" 2>/dev/null
	rmmod smbd_test 2>/dev/null
	exit 1
}

cmd() { # cmd COMMAND...: must succeed
	echo "$*" >"$C" || fail "'$*' refused: $(cat "$R" 2>/dev/null)"
	sed 's/^/# /' "$R"
}

stat_of() { sed -n "s/^$1 //p" "$D/stats"; }

[ "$(stat_of connections)" = 0 ] || fail "connections before the test"
[ "$(stat_of listeners)" = 0 ] || fail "listeners before the test"
modprobe smbd_test || fail "modprobe smbd_test"
cmd listen echo "$RXE_ADDR" 7480
cmd listen echo "$SIW_ADDR" 7481
# The wildcard address with port 0: a group with a listener per device.
cmd listen sink 0.0.0.0
cmd open t "$RXE_ADDR" 7480
cmd send t count=2 size=100
cmd open u "$SIW_ADDR" 7481
cmd send u count=2 size=100
# Two clients and the two connections the echo listeners accepted.
wait_for 10 sh -c "[ \"\$(grep -c . $D/connections)\" = 4 ]" ||
	fail "expected 4 connections"
say "before: $(stat_of connections) connections, $(stat_of listeners) listeners"

reports() { dmesg | grep -c 'smbdirect: module smbd_test went with'; }
n0=$(reports)
echo 1 >"$P" || fail "cannot set orphan_on_exit"
rmmod smbd_test || fail "rmmod smbd_test"
[ "$(reports)" = $((n0 + 1)) ] || fail "expected one report from smbdirect"
msg=$(dmesg | grep 'smbdirect: module smbd_test went with' | tail -n 1)
say "$msg"
echo "$msg" | grep -q ' 3 listener(s) and 4 connection(s) of its own; destroyed them$' ||
	fail "smbdirect did not report 3 listeners and 4 connections of smbd_test"
wait_for 20 sh -c "[ ! -s $D/connections ]" || fail "connections left behind"
[ "$(stat_of listeners)" = 0 ] || fail "listeners left behind"
wait_for 20 sh -c "[ \"\$(sed -n 's/^connections_allocated //p' $D/stats)\" = 0 ]" ||
	fail "connections still allocated"

# The ports are free again, and the next user of them is served.
modprobe smbd_test || fail "modprobe smbd_test again"
cmd listen echo "$RXE_ADDR" 7480
cmd run "$RXE_ADDR" 7480 count=10 size=1000 verify=1
grep -q '^verified 10 echoes, 0 mismatched' "$R" || fail "echoes not verified"
cmd unlisten all
rmmod smbd_test || fail "rmmod smbd_test"
[ "$(reports)" = $((n0 + 1)) ] ||
	fail "a clean unload was reported as leaving something"
echo "smbdirect destroyed 3 listeners and 4 connections smbd_test left behind"
