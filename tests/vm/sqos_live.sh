#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Live MS-SQOS test inside the VM: configure a policy from the shell through
# configfs (/sys/kernel/config/sqos/policies/<PolicyID>), check that values
# the store refuses change nothing and that debugfs is read-only, load
# sqos_api_live_kunit with that policy so it drives the real entry points of
# sqos.ko (open, control requests, throttled I/O, counters), then read the
# flow and its counters back from /sys/kernel/debug/sqos/flows, change the
# policy at run time, and check that removing the last open removes the
# flow. Exit 0 = pass.

D=/sys/kernel/debug/sqos
C=/sys/kernel/config/sqos
MOD=sqos_api_live_kunit
SUITE=/sys/kernel/debug/kunit/sqos_api_live
POLICY=7a3c9e10-4b2d-4c1e-9f00-5e5e5e5e5e01
FLOW=7a3c9e10-4b2d-4c1e-9f00-5e5e5e5e5e02

cleanup() {
	rmmod "$MOD" 2>/dev/null
	rmdir "$C/policies/$POLICY" 2>/dev/null
	echo 1 >"$C/enabled" 2>/dev/null
}

fail() {
	echo "FAIL: $*"
	[ -r "$D/flows" ] && { echo "--- $D/flows"; cat "$D/flows"; }
	[ -r "$D/stats" ] && { echo "--- $D/stats"; cat "$D/stats"; }
	cleanup
	exit 1
}

flow_block() { # the lines of $D/flows that describe flow $1
	awk -v want="flow $1" '$0 == want { p = 1; print; next } /^flow / { p = 0 } p' "$D/flows"
}

expect_in_flow() { # expect_in_flow PATTERN: the flow's block has PATTERN
	echo "$block" | grep -q -- "$1" || fail "flow $FLOW lacks '$1'"
}

[ -d "$D" ] || modprobe sqos || fail "sqos not loaded"
[ -d "$D" ] || fail "no $D"
grep -q '^enabled=1 ' "$D/stats" || fail "sqos is not enabled"
grep -qw configfs /proc/filesystems || fail "no configfs"
grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
	mount -t configfs none /sys/kernel/config || fail "cannot mount configfs"
[ -d "$C/policies" ] || fail "no $C/policies"

# 1. Policy from the shell; what the store refuses changes nothing
mkdir "$C/policies/$POLICY" || fail "mkdir policy refused"
echo 200 >"$C/policies/$POLICY/max_iops" || fail "max_iops write refused"
[ "$(cat "$C/policies/$POLICY/max_iops")" = 200 ] || fail "max_iops reads back wrong"
[ "$(cat "$C/policies/$POLICY/min_iops")" = 0 ] || fail "min_iops is not 0"
grep -qx "$POLICY max_iops=200 min_iops=0" "$D/policies" || fail "policy not listed"
if echo 201 >"$C/policies/$POLICY/min_iops" 2>/dev/null; then
	fail "a minimum above the maximum was accepted"
fi
if echo 1000000001 >"$C/policies/$POLICY/max_iops" 2>/dev/null; then
	fail "a maximum above 10^9 was accepted"
fi
if echo bogus >"$C/policies/$POLICY/max_iops" 2>/dev/null; then
	fail "a bogus value was accepted"
fi
UPPER=$(echo "$POLICY" | tr a-f A-F)
if mkdir "$C/policies/$UPPER" 2>/dev/null; then
	rmdir "$C/policies/$UPPER"
	fail "a PolicyID not in the canonical form was accepted"
fi
if mkdir "$C/policies/not-a-guid" 2>/dev/null; then
	rmdir "$C/policies/not-a-guid"
	fail "a directory that is not a PolicyID was accepted"
fi
grep -qx "$POLICY max_iops=200 min_iops=0" "$D/policies" || fail "policy changed by a refused write"
# debugfs is diagnostics only: nothing there can be written
for f in enabled enforce ttl_ms capacity_iops policies flows stats; do
	[ -e "$D/$f" ] || fail "no $D/$f"
	if echo 0 >"$D/$f" 2>/dev/null; then
		fail "$D/$f is writable"
	fi
done
# The global switches round-trip through configfs into the server
echo 0 >"$C/enabled" || fail "enabled write refused"
grep -q '^enabled=0 ' "$D/stats" || fail "enabled=0 did not reach the server"
echo 1 >"$C/enabled" || fail "enabled write refused"
[ "$(cat "$C/ttl_ms")" = "$(cat "$D/ttl_ms")" ] || fail "ttl_ms differs"
if echo 0 >"$C/ttl_ms" 2>/dev/null; then
	fail "TimeToLive 0 was accepted"
fi

# 2. Kernel code drives the entry points with that policy
rmmod "$MOD" 2>/dev/null
modprobe "$MOD" policy="$POLICY" expect_max=200 flow="$FLOW" keep=1 || fail "modprobe $MOD"
[ -r "$SUITE/results" ] || fail "no KUnit results for sqos_api_live"
cat "$SUITE/results"
grep -q '^[[:space:]]*not ok' "$SUITE/results" && fail "sqos_api_live failed"
grep -q '^ok' "$SUITE/results" || fail "sqos_api_live did not finish"

# 3. The flow and its counters in debugfs
block=$(flow_block "$FLOW")
[ -n "$block" ] || fail "flow $FLOW not in $D/flows"
echo "$block"
expect_in_flow "policy_id=$POLICY "
expect_in_flow 'initiator_name="LIVE-VM"'
expect_in_flow " max_iops=200 "
expect_in_flow " status=0 "
expect_in_flow " opens=1 "
expect_in_flow " started=100 "
expect_in_flow " completed=100 "
expect_in_flow " inflight_units=0"
expect_in_flow "client_updates=1 "
expect_in_flow " client_io_count=100 "
expect_in_flow " client_latency=1000 "
delayed=$(echo "$block" | sed -n 's/^ *delayed=\([0-9]*\) .*/\1/p')
# 200 IOPS with a 50-unit burst: about 50 of the 100 I/Os wait (fewer when
# sleeps overshoot and the bucket refills a little meanwhile)
[ -n "$delayed" ] && [ "$delayed" -ge 10 ] || fail "only '$delayed' I/Os were held back"

# 4. A policy change reaches the live flow
echo 500 >"$C/policies/$POLICY/max_iops" || fail "policy update refused"
block=$(flow_block "$FLOW")
expect_in_flow " max_iops=500 "
rmdir "$C/policies/$POLICY" || fail "policy delete refused"
block=$(flow_block "$FLOW")
expect_in_flow " status=2 "
expect_in_flow " max_iops=0 "
grep -q "^$POLICY" "$D/policies" && fail "policy still listed after rmdir"

# 5. The last open goes with the module: so does the flow
rmmod "$MOD" || fail "rmmod $MOD"
grep -q "^flow $FLOW\$" "$D/flows" && fail "flow left after its last open"
grep -q ' flows=0 opens=0 ' "$D/stats" || fail "objects left behind"
cat "$D/stats"
echo "PASS"
exit 0
